//! `simulate SPEC -g RG --since 14d`: the queue's arrivals read from Azure Monitor metrics
//! (Metrics - List, the same response `az monitor metrics list -o json` prints), with the
//! credentials and flags of `status`, instead of an export the user makes by hand.
//!
//! What is read (the README's `az` recipes, the same metrics the trace reader knows):
//! - Service Bus: the namespace metric `IncomingMessages` (Total, PT1M) split by `EntityName`
//!   (the spec's queue);
//! - storage queue: `Transactions` (Total, PT1M) on `queueServices/default` with
//!   `ApiName eq 'PutMessage'`.
//!
//! One request per day of the window (one-minute points; a day is 1,440 of them), joined as the
//! concatenated exports the trace reader already reads.

use jiff::{Timestamp, ToSpan};
use serde_json::Value;

use super::load::{self, Trace};
use crate::azure::{Arm, ArmApi, ArmError};
use crate::plan::{Plan, QueueKind};

/// Where the arrivals are read.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub resource_id: String,
    pub metric: &'static str,
    pub aggregation: &'static str,
    pub filter: Option<String>,
    pub entity: String,
}

/// The metric that counts the queue's arrivals, for the plan's queue in `subscription`/`rg`.
pub fn source(plan: &Plan, subscription: &str, rg: &str) -> Result<Source, String> {
    let q = plan.queue.as_ref().ok_or(
        "the spec has no queue (autoscale.queue): there are no arrivals to read from Azure; give --trace FILE",
    )?;
    let qrg = q.resource_group.as_deref().unwrap_or(rg);
    Ok(match q.kind {
        QueueKind::ServiceBus => Source {
            resource_id: format!(
                "/subscriptions/{subscription}/resourceGroups/{qrg}/providers/Microsoft.ServiceBus/namespaces/{}",
                q.parent
            ),
            metric: "IncomingMessages",
            aggregation: "Total",
            filter: Some(format!("EntityName eq '{}'", q.queue)),
            entity: q.queue.clone(),
        },
        QueueKind::Storage => Source {
            resource_id: format!(
                "/subscriptions/{subscription}/resourceGroups/{qrg}/providers/Microsoft.Storage/storageAccounts/{}/queueServices/default",
                q.parent
            ),
            metric: "Transactions",
            aggregation: "Total",
            filter: Some("ApiName eq 'PutMessage'".to_string()),
            entity: q.queue.clone(),
        },
    })
}

/// Why the pull failed.
#[derive(Debug)]
pub enum PullError {
    Arm(ArmError),
    Trace(String),
}

/// Read `[end - minutes, end)` of arrivals (whole minutes, UTC), a day per request.
pub async fn arrivals(
    arm: &Arm,
    src: &Source,
    end: Timestamp,
    minutes: u64,
) -> Result<Trace, PullError> {
    let end = Timestamp::from_second(end.as_second().div_euclid(60) * 60)
        .map_err(|e| PullError::Trace(e.to_string()))?;
    let start = end
        .checked_sub((minutes.min(93 * 1440) as i64).minutes())
        .map_err(|e| PullError::Trace(e.to_string()))?;
    let mut docs: Vec<Value> = Vec::new();
    let mut from = start;
    while from < end {
        let to = from
            .checked_add(24.hours())
            .map_err(|e| PullError::Trace(e.to_string()))?
            .min(end);
        let body = arm
            .metric_series(
                &src.resource_id,
                src.metric,
                src.aggregation,
                &format!("{from}/{to}"),
                "PT1M",
                src.filter.as_deref(),
            )
            .await
            .map_err(PullError::Arm)?;
        docs.push(body);
        from = to;
    }
    let text = serde_json::to_string(&Value::Array(docs)).unwrap_or_default();
    let name = format!("Azure Monitor {} of {}", src.metric, src.resource_id);
    load::parse(&name, &text, Some(&src.entity)).map_err(|e| PullError::Trace(e.to_string()))
}

/// The arrivals of the spec's queue over the `minutes` before `end`, read with `arm` (the
/// subscription `arm` is signed in to; the queue's own resource group when the spec names one).
pub async fn pull(
    arm: &Arm,
    plan: &Plan,
    rg: &str,
    end: Timestamp,
    minutes: u64,
) -> Result<Trace, PullError> {
    let src = source(plan, arm.subscription(), rg).map_err(PullError::Trace)?;
    arrivals(arm, &src, end, minutes).await
}
