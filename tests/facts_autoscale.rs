//! Issue 22: the autoscale facts `simulate` models with, held against their sources (the dated
//! excerpts in `tests/fixtures/sources/autoscale-semantics.json` and the metrics table
//! `../shared/azure/metrics.json`), never against the code's own constants.

use std::path::{Path, PathBuf};

use gpuform::facts::autoscale::{
    SCALE_IN_DEFAULT_ORDER, SERVICE_BUS_ACTIVE_MESSAGES, STORAGE_APPROXIMATE_MESSAGE_COUNT,
    queue_metric,
};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sources() -> Value {
    let p = root().join("tests/fixtures/sources/autoscale-semantics.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn queue_metric_readings_follow_their_sources() {
    let s = sources();
    let sb = &s["serviceBusActiveMessages"];
    // the source says "ready for delivery": a message a worker holds is not counted
    let says_ready_only = sb["excerpt"]
        .as_str()
        .unwrap()
        .contains("ready for delivery")
        && sb["threadExcerpt"]
            .as_str()
            .unwrap()
            .contains("NOT counted");
    assert!(says_ready_only);
    assert_eq!(
        SERVICE_BUS_ACTIVE_MESSAGES.counts_in_service,
        !says_ready_only
    );
    assert_eq!(
        SERVICE_BUS_ACTIVE_MESSAGES.source.assumption,
        !says_ready_only
    );
    assert!(
        SERVICE_BUS_ACTIVE_MESSAGES
            .source
            .what
            .contains(sb["url"].as_str().unwrap())
    );
    assert!(
        SERVICE_BUS_ACTIVE_MESSAGES
            .source
            .what
            .contains(sb["thread"].as_str().unwrap())
    );
    // storage: the documentation does not mention invisible messages, so gpuform's reading is
    // an assumption, and the conservative one (not counted: it scales out later)
    let st = &s["storageApproximateMessageCount"];
    let text = st["excerpt"].as_str().unwrap().to_ascii_lowercase();
    let documented = text.contains("invisible") || text.contains("visibility");
    assert!(!documented);
    assert_eq!(
        STORAGE_APPROXIMATE_MESSAGE_COUNT.source.assumption,
        !documented
    );
    // undocumented: the conservative reading (not counted)
    assert_eq!(
        STORAGE_APPROXIMATE_MESSAGE_COUNT.counts_in_service,
        documented
    );
    assert!(
        STORAGE_APPROXIMATE_MESSAGE_COUNT
            .source
            .what
            .contains(st["url"].as_str().unwrap())
    );
}

#[test]
fn scale_in_order_follows_its_source() {
    let s = sources();
    let d = &s["scaleInPolicyDefault"];
    assert!(
        d["excerpt"]
            .as_str()
            .unwrap()
            .contains("highest instance ID")
    );
    assert!(
        SCALE_IN_DEFAULT_ORDER
            .what
            .contains(d["url"].as_str().unwrap())
    );
    let stated = d["excerpt"]
        .as_str()
        .unwrap()
        .contains("highest instance ID");
    assert_eq!(SCALE_IN_DEFAULT_ORDER.assumption, !stated);
}

/// Every queue metric gpuform renders into an autoscale rule has a fact, and the Service Bus
/// metric is one Azure Monitor lists for namespaces.
#[test]
fn every_rendered_queue_metric_has_a_fact() {
    for name in [
        "ActiveMessages",
        "ActiveMessageCount",
        "ApproximateMessageCount",
    ] {
        assert!(queue_metric(name).is_some(), "{name}");
    }
    let shared = root().join("../shared/azure/metrics.json");
    if !Path::new(&shared).is_file() {
        return;
    }
    let v: Value = serde_json::from_str(&std::fs::read_to_string(shared).unwrap()).unwrap();
    let listed = |rt: &str, m: &str| {
        let mut found = false;
        fn walk(v: &Value, rt: &str, m: &str, found: &mut bool) {
            match v {
                Value::Object(o) => {
                    if o.get("resourceType")
                        .and_then(Value::as_str)
                        .is_some_and(|r| r.eq_ignore_ascii_case(rt))
                        && o.get("name").and_then(Value::as_str) == Some(m)
                    {
                        *found = true;
                    }
                    o.values().for_each(|x| walk(x, rt, m, found));
                }
                Value::Array(a) => a.iter().for_each(|x| walk(x, rt, m, found)),
                _ => {}
            }
        }
        walk(&v, rt, m, &mut found);
        found
    };
    assert!(listed(
        "Microsoft.ServiceBus/namespaces",
        SERVICE_BUS_ACTIVE_MESSAGES.metric
    ));
}

/// Schedule learning (issue 22 item 6) keeps its proposal inside Azure's profile limit and
/// writes weekly recurrences: both held against the dated excerpts.
#[test]
fn profile_limit_and_recurrence_shape_follow_their_sources() {
    use gpuform::facts::autoscale::{
        MAX_PROFILES_PER_SETTING, MAX_PROFILES_SOURCE, RECURRENCE_FREQUENCY, RECURRENCE_SOURCE,
    };
    let s = sources();
    let lim = &s["autoscaleProfileLimit"];
    let excerpt = lim["excerpt"].as_str().unwrap();
    let n: usize = excerpt
        .split('|')
        .nth(2)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(excerpt.contains("profiles per autoscale setting"));
    assert_eq!(MAX_PROFILES_PER_SETTING, n);
    assert!(!MAX_PROFILES_SOURCE.assumption);
    assert!(
        MAX_PROFILES_SOURCE
            .what
            .contains(lim["url"].as_str().unwrap())
    );
    let rec = &s["recurrenceFrequency"];
    let text = rec["excerpt"].as_str().unwrap();
    assert!(text.contains(&format!("must be {RECURRENCE_FREQUENCY},")));
    assert!(
        RECURRENCE_SOURCE
            .what
            .contains(rec["url"].as_str().unwrap())
    );
    for field in [
        "ScheduleDay",
        "ScheduleHour",
        "ScheduleMinute",
        "ScheduleTimeZone",
    ] {
        assert!(
            rec["scheduleFieldsExcerpt"]
                .as_str()
                .unwrap()
                .contains(field)
        );
    }
}

/// The scale-out rules' `timeAggregation` values (`autoscale.queue.scaleOutAggregation`) are
/// among those the autoscale model documents, Azure's default is the one rendered when the
/// field is absent, and the source names the page the excerpt is from.
#[test]
fn time_aggregation_follows_its_source() {
    use gpuform::facts::autoscale::{
        TIME_AGGREGATION_DEFAULT, TIME_AGGREGATION_SOURCE, TIME_AGGREGATIONS,
    };
    use gpuform::spec::model::ScaleOutAggregation;
    let s = sources();
    let t = &s["timeAggregation"];
    let values: Vec<&str> = t["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(TIME_AGGREGATIONS.to_vec(), values);
    let excerpt = t["excerpt"].as_str().unwrap();
    assert!(excerpt.contains(&format!("default value is {TIME_AGGREGATION_DEFAULT}")));
    assert!(
        TIME_AGGREGATION_SOURCE
            .what
            .contains(t["url"].as_str().unwrap())
    );
    assert!(!TIME_AGGREGATION_SOURCE.assumption);
    for a in ScaleOutAggregation::ALL {
        assert!(values.contains(&a.azure()), "{a:?}");
    }
    assert_eq!(
        ScaleOutAggregation::default().azure(),
        TIME_AGGREGATION_DEFAULT
    );
    // the facts summary the values come from, when the shared folder is there
    let shared = root().join("../shared/azure/facts.md");
    if let Ok(text) = std::fs::read_to_string(shared) {
        assert!(text.contains("timeAggregation Average|Minimum|Maximum|Total|Count|Last"));
    }
    // the rules keep the statistic Average, which Azure Monitor lists for ActiveMessages
    let shared = root().join("../shared/azure/metrics.json");
    if let Ok(text) = std::fs::read_to_string(shared) {
        let v: Value = serde_json::from_str(&text).unwrap();
        let am = v["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "ActiveMessages")
            .unwrap();
        assert!(
            am["aggregations"]
                .as_array()
                .unwrap()
                .contains(&Value::from("Average"))
        );
    }
}
