//! The activity log (24 h): events grouped into operations, Spot evictions and scale actions.

use std::collections::BTreeMap;

use serde_json::Value;

use super::model::{Activity, Event};

/// One operation of the activity log: its events (the log records an operation as several
/// events, `Started` then `Succeeded` or `Failed`, under one `correlationId`; Learn, "Azure
/// Activity Log event schema", <https://learn.microsoft.com/azure/azure-monitor/essentials/activity-log-schema>,
/// and `EventData.correlation_id`: "shared among the events that belong to the same uber
/// operation", learn.microsoft.com/python/api/azure-mgmt-monitor/azure.mgmt.monitor.models.eventdata;
/// read 2026-12-03).
#[derive(Debug, Clone)]
pub struct Operation<'a> {
    /// The events, oldest first.
    pub events: Vec<&'a crate::azure::operate::Event>,
}

impl Operation<'_> {
    /// The first event's time (when the operation started).
    pub fn started(&self) -> String {
        self.events
            .first()
            .and_then(|e| e.event_timestamp.clone())
            .unwrap_or_default()
    }

    /// The final status: the latest terminal one (Succeeded, Failed, Canceled), else the
    /// latest.
    pub fn status(&self) -> String {
        let of = |e: &&crate::azure::operate::Event| {
            e.status
                .as_ref()
                .and_then(|s| s.value.clone())
                .filter(|s| !s.is_empty())
        };
        let terminal = |s: &str| {
            ["Succeeded", "Failed", "Canceled"]
                .iter()
                .any(|t| t.eq_ignore_ascii_case(s))
        };
        self.events
            .iter()
            .rev()
            .filter_map(of)
            .find(|s| terminal(s))
            .or_else(|| self.events.iter().rev().find_map(of))
            .unwrap_or_else(|| "unknown".into())
    }

    /// The properties of the latest event that has any (autoscale puts the counts on the end
    /// event).
    pub fn properties(&self) -> serde_json::Map<String, Value> {
        self.events
            .iter()
            .rev()
            .find_map(|e| e.properties.clone().filter(|p| !p.is_empty()))
            .unwrap_or_default()
    }
}

/// Group activity log events into operations: one per `correlationId`, operation name and
/// resource (an event without a correlation id is an operation of its own).
pub fn operations(events: &[crate::azure::operate::Event]) -> Vec<Operation<'_>> {
    let mut order: Vec<String> = Vec::new();
    let mut groups: BTreeMap<String, Vec<&crate::azure::operate::Event>> = BTreeMap::new();
    for (i, e) in events.iter().enumerate() {
        let op = e
            .operation_name
            .as_ref()
            .and_then(|o| o.value.clone())
            .unwrap_or_default()
            .to_ascii_lowercase();
        let res = e
            .resource_id
            .clone()
            .unwrap_or_default()
            .to_ascii_lowercase();
        let key = match e.correlation_id.as_deref().filter(|c| !c.is_empty()) {
            Some(c) => format!("{c}|{op}|{res}"),
            None => format!("event|{}|{i}", e.event_data_id.clone().unwrap_or_default()),
        };
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(e);
    }
    order
        .into_iter()
        .filter_map(|k| groups.remove(&k))
        .map(|mut events| {
            events.sort_by(|a, b| a.event_timestamp.cmp(&b.event_timestamp));
            Operation { events }
        })
        .collect()
}

/// The Spot evictions (the latest 10) and scale actions (the latest 5) among the log's events.
pub(super) fn activity_of(events: &[crate::azure::operate::Event]) -> Activity {
    let mut spot = Vec::new();
    let mut scale = Vec::new();
    // count operations, not events (an operation logs Started, then Succeeded/Failed)
    for o in operations(events) {
        let e = o.events[0];
        let status = o.status();
        let op = e
            .operation_name
            .as_ref()
            .and_then(|o| o.value.clone())
            .unwrap_or_default();
        let lower = op.to_ascii_lowercase();
        let time = o.started();
        let resource = e
            .resource_id
            .as_deref()
            .and_then(|r| r.rsplit('/').next())
            .unwrap_or("")
            .to_string();
        if lower.contains("evictspot") || lower.contains("spoteviction") {
            spot.push(Event {
                time,
                what: resource,
                status,
            });
        } else if lower.starts_with("microsoft.insights/autoscalesettings/scale") {
            let props = o.properties();
            let get = |k: &str| {
                props
                    .get(k)
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string()
            };
            let what = format!(
                "{} {} -> {}: {}",
                if lower.contains("scaleup") {
                    "scale out"
                } else {
                    "scale in"
                },
                get("OldInstancesCount"),
                get("NewInstancesCount"),
                props
                    .get("Description")
                    .and_then(Value::as_str)
                    .or(o
                        .events
                        .iter()
                        .rev()
                        .find_map(|e| e.description.as_deref().filter(|d| !d.is_empty())))
                    .unwrap_or("no reason recorded")
            );
            scale.push(Event { time, what, status });
        }
    }
    // newest first, a screenful
    spot.sort_by(|a, b| b.time.cmp(&a.time));
    scale.sort_by(|a, b| b.time.cmp(&a.time));
    spot.truncate(10);
    scale.truncate(5);
    Activity {
        spot_evictions: spot,
        scale_actions: scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activity_log_events_are_counted_as_operations_with_their_final_status() {
        let ev = |cid: &str, t: &str, status: &str, op: &str| -> crate::azure::operate::Event {
            serde_json::from_value(serde_json::json!({
                "correlationId": cid, "eventTimestamp": t, "eventDataId": format!("{cid}{t}"),
                "operationName": {"value": op}, "status": {"value": status},
                "resourceId": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm1"
            }))
            .unwrap()
        };
        const EVICT: &str = "Microsoft.Compute/virtualMachines/evictSpotVM/action";
        const SCALE: &str = "Microsoft.Insights/AutoscaleSettings/Scaledown/Action";
        // newest first, as the log lists them
        let events = vec![
            ev("c3", "2026-12-02T10:00:09Z", "InProgress", SCALE),
            ev("c2", "2026-12-02T09:30:40Z", "Failed", SCALE),
            ev("c2", "2026-12-02T09:30:05Z", "Started", SCALE),
            ev("c3", "2026-12-02T10:00:00Z", "Started", SCALE),
            ev("c1", "2026-12-02T09:00:03Z", "Succeeded", EVICT),
            ev("c1", "2026-12-02T09:00:01Z", "InProgress", EVICT),
            ev("c1", "2026-12-02T09:00:00Z", "Started", EVICT),
        ];
        let ops = operations(&events);
        let got: Vec<(String, String, usize)> = ops
            .iter()
            .map(|o| (o.started(), o.status(), o.events.len()))
            .collect();
        assert_eq!(
            got,
            [
                ("2026-12-02T10:00:00Z".into(), "InProgress".into(), 2),
                ("2026-12-02T09:30:05Z".into(), "Failed".into(), 2),
                ("2026-12-02T09:00:00Z".into(), "Succeeded".into(), 3),
            ]
        );
        // without a correlation id each event is its own operation
        let mut lone = events[4].clone();
        lone.correlation_id = None;
        let mut other = lone.clone();
        other.event_data_id = Some("x".into());
        assert_eq!(operations(&[lone, other]).len(), 2);
        // the text shows a status other than Succeeded
        let e = super::super::model::Event {
            time: "t".into(),
            what: "scale in 8 -> 6: r".into(),
            status: "Failed".into(),
        };
        assert_eq!(
            super::super::render::event_line(&e),
            "t  scale in 8 -> 6: r (Failed)"
        );
    }
}
