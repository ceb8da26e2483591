//! The metrics `gpuform status` reads for a serving frontend (`gpuform::status::serving`'s
//! `GATEWAY_READS` and `LOAD_BALANCER_READS`, the very lists the code asks Azure Monitor for),
//! held against Microsoft's supported-metrics tables (`../shared/azure/metrics.json`, else the
//! dated copy `tests/fixtures/sources/metrics.json`): each is listed under its resource type with
//! that exact name and unit, the aggregation status asks for, and a one-minute grain (status reads
//! `interval=PT1M`).

mod sources;

use gpuform::status::serving::{GATEWAY_READS, LOAD_BALANCER_READS};
use serde_json::Value;
use sources::{read_json, source_path};

#[test]
fn every_serving_metric_status_reads_is_in_the_supported_metrics_table() {
    let table = read_json(&source_path("azure/metrics.json", "metrics.json"));
    let records = table["metrics"].as_array().unwrap();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    let reads: Vec<_> = GATEWAY_READS
        .iter()
        .chain(LOAD_BALANCER_READS.iter())
        .collect();
    assert_eq!(reads.len(), 6);
    for (m, aggregation) in reads {
        let r = records
            .iter()
            .find(|r| {
                r["resourceType"]
                    .as_str()
                    .unwrap()
                    .eq_ignore_ascii_case(m.namespace)
                    && r["name"] == m.name
            })
            .unwrap_or_else(|| {
                panic!(
                    "{} is not a metric of {} in metrics.json",
                    m.name, m.namespace
                )
            });
        assert_eq!(r["unit"], m.unit, "{}: unit", m.name);
        let listed = strings(&r["aggregations"]);
        assert!(
            listed.iter().any(|a| a == aggregation),
            "{} of {}: status asks for {aggregation}, the table lists {listed:?}",
            m.name,
            m.namespace
        );
        assert!(
            m.aggregations.contains(aggregation),
            "{}: the facts entry does not name the aggregation status asks for",
            m.name
        );
        assert!(
            strings(&r["timeGrains"]).iter().any(|g| g == "PT1M"),
            "{}: no one-minute grain",
            m.name
        );
        if let Some(d) = m.dimension {
            assert!(
                strings(&r["dimensions"]).iter().any(|x| x == d),
                "{}: no dimension {d}",
                m.name
            );
        }
    }
}
