//! The serving frontend (`plan.serving`): the Application Gateway's requests, failed requests,
//! healthy and unhealthy hosts and backend last-byte response time, and the internal load
//! balancer's health-probe status, from Azure Monitor platform metrics
//! ([`crate::facts::serving_ops`]: names, units and aggregations as `../shared/azure/metrics.json`
//! lists them; `tests/facts_serving_ops.rs` holds [`GATEWAY_READS`] and [`LOAD_BALANCER_READS`]
//! against it). Each metric is the latest minute with data in the last
//! [`STATUS_WINDOW_MINUTES`] minutes, over the whole resource (no dimension filter). A gateway
//! reports nothing while idle, so a metric without data is `null` in JSON and "no data (no
//! traffic?)" in text, never 0.

use serde::Serialize;

use crate::azure::{Arm, ArmApi, ArmError};
use crate::facts::serving_ops::{
    BACKEND_LAST_BYTE, FAILED_REQUESTS, HEALTHY_HOSTS, LB_PROBE_STATUS, STATUS_WINDOW_MINUTES,
    StatusMetric, TOTAL_REQUESTS, UNHEALTHY_HOSTS,
};
use crate::plan::Plan;

use super::section::Section;

/// What status reads from the gateway, with the aggregation asked for, in
/// [`GatewayMetrics`]' order.
pub const GATEWAY_READS: [(StatusMetric, &str); 5] = [
    (TOTAL_REQUESTS, "Total"),
    (FAILED_REQUESTS, "Total"),
    (HEALTHY_HOSTS, "Average"),
    (UNHEALTHY_HOSTS, "Average"),
    (BACKEND_LAST_BYTE, "Average"),
];
/// What status reads from the load balancer.
pub const LOAD_BALANCER_READS: [(StatusMetric, &str); 1] = [(LB_PROBE_STATUS, "Average")];

/// The serving section (present when the plan has a serving frontend).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Serving {
    /// `applicationGateway`, `loadBalancer` or `both` (the plan's).
    pub frontend: String,
    /// Each figure is the latest minute with data in this many minutes.
    pub window_minutes: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gateway: Option<Section<GatewayMetrics>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_balancer: Option<Section<LoadBalancerMetrics>>,
}

/// The gateway's figures; `None` (JSON `null`): no data in the window.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GatewayMetrics {
    pub name: String,
    /// `TotalRequests` (Total): successful requests in the minute.
    pub requests: Option<f64>,
    /// `FailedRequests` (Total).
    pub failed_requests: Option<f64>,
    /// `HealthyHostCount` (Average).
    pub healthy_hosts: Option<f64>,
    /// `UnhealthyHostCount` (Average).
    pub unhealthy_hosts: Option<f64>,
    /// `BackendLastByteResponseTime` (Average), milliseconds: no percentile exists.
    pub backend_last_byte_ms: Option<f64>,
}

/// The load balancer's figure.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoadBalancerMetrics {
    pub name: String,
    /// `DipAvailability` (Average): 100 when every probe answered (an assumption:
    /// [`crate::facts::serving_ops::PROBE_STATUS_SCALE`]).
    pub probe_availability: Option<f64>,
}

fn resource_id(sub: &str, rg: &str, m: &StatusMetric, name: &str) -> String {
    format!(
        "/subscriptions/{sub}/resourceGroups/{rg}/providers/{}/{name}",
        m.namespace
    )
}

/// Read every metric of `reads` from the resource `name`; the first failure is the section's.
async fn read<const N: usize>(
    arm: &Arm,
    rg: &str,
    name: &str,
    reads: &[(StatusMetric, &str); N],
) -> Result<Vec<Option<f64>>, ArmError> {
    let sub = arm.subscription().to_string();
    let calls = reads.iter().map(|(m, agg)| {
        let id = resource_id(&sub, rg, m, name);
        async move { arm.metric_now(&id, m.name, agg, None).await }
    });
    futures::future::join_all(calls).await.into_iter().collect()
}

/// Gather the section. `None` without a serving frontend; `Err` only for fatal errors.
pub async fn gather(arm: &Arm, plan: &Plan, rg: &str) -> Result<Option<Serving>, ArmError> {
    let Some(s) = &plan.serving else {
        return Ok(None);
    };
    let gateway = async {
        match &s.gateway {
            None => Ok(None),
            Some(g) => Section::from(read(arm, rg, &g.name, &GATEWAY_READS).await.map(|v| {
                GatewayMetrics {
                    name: g.name.clone(),
                    requests: v[0],
                    failed_requests: v[1],
                    healthy_hosts: v[2],
                    unhealthy_hosts: v[3],
                    backend_last_byte_ms: v[4],
                }
            }))
            .map(Some),
        }
    };
    let load_balancer = async {
        match &s.load_balancer {
            None => Ok(None),
            Some(lb) => Section::from(read(arm, rg, &lb.name, &LOAD_BALANCER_READS).await.map(
                |v| LoadBalancerMetrics {
                    name: lb.name.clone(),
                    probe_availability: v[0],
                },
            ))
            .map(Some),
        }
    };
    let (gateway, load_balancer) = futures::join!(gateway, load_balancer);
    Ok(Some(Serving {
        frontend: s.frontend_kind.to_string(),
        window_minutes: STATUS_WINDOW_MINUTES,
        gateway: gateway?,
        load_balancer: load_balancer?,
    }))
}

const NO_DATA: &str = "no data (no traffic?)";

fn figure(v: Option<f64>, decimals: usize, unit: &str) -> String {
    v.map_or(NO_DATA.to_string(), |v| format!("{v:.decimals$}{unit}"))
}

/// Whether Azure gave none of the frontend's figures.
pub(super) fn nothing_available(s: &Serving) -> bool {
    !matches!(s.gateway, Some(Section::Ok(_))) && !matches!(s.load_balancer, Some(Section::Ok(_)))
}

/// The text lines of the section.
pub(super) fn lines(s: &Serving) -> Vec<String> {
    let mut v = vec![format!(
        "{} frontend; each figure is the latest minute with data in the last {} minutes",
        s.frontend, s.window_minutes
    )];
    match &s.gateway {
        Some(Section::Ok(g)) => {
            v.push(format!(
                "gateway {}: requests {}, failed {}",
                g.name,
                figure(g.requests, 0, ""),
                figure(g.failed_requests, 0, "")
            ));
            v.push(format!(
                "gateway {}: healthy hosts {}, unhealthy hosts {}",
                g.name,
                figure(g.healthy_hosts, 1, ""),
                figure(g.unhealthy_hosts, 1, "")
            ));
            v.push(format!(
                "gateway {}: backend last-byte response time {} (average; Azure keeps no percentile, `gpuform simulate` estimates the p95)",
                g.name,
                figure(g.backend_last_byte_ms, 0, " ms")
            ));
        }
        Some(Section::NotAvailable { not_available }) => {
            v.push(format!("gateway: not available: {not_available}"))
        }
        None => {}
    }
    match &s.load_balancer {
        Some(Section::Ok(lb)) => v.push(format!(
            "load balancer {}: health probe status {} (average; 100: every probe answered)",
            lb.name,
            figure(lb.probe_availability, 1, "")
        )),
        Some(Section::NotAvailable { not_available }) => {
            v.push(format!("load balancer: not available: {not_available}"))
        }
        None => {}
    }
    v
}
