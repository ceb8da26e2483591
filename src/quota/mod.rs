//! `gpuform quota request`: turn the quota preflight found missing into Azure Quota API
//! (`Microsoft.Quota`) requests and follow each to its end state.
//!
//! The numbers come from preflight's [`QuotaNeed`] (the exact new limit, in the names the
//! Compute usages API uses: the family, `cores`, `lowPriorityCores`); nothing is re-derived.
//! A request is a PUT of `quotas/{name}` with `limit.value` = the new limit; Azure answers 202
//! with a `Location` to poll (and `Retry-After`), and the request ends `Succeeded` (approved),
//! `Failed`/`Invalid` (denied; `ContactSupport` means it needs a support ticket), or stays
//! `InProgress` longer than gpuform waits.

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

pub mod filing;

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use crate::azure::deployments::Accepted;
use crate::azure::operate::QuotaRequest;
use crate::azure::{Arm, ArmError, ErrorKind};
use crate::preflight::Report;

/// One increase to ask for.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Ask {
    pub region: String,
    /// The Compute usages `name.value` ("Standard NCASv3_T4 Family", "cores", "lowPriorityCores").
    pub quota: String,
    pub label: String,
    pub current_limit: i64,
    pub current_usage: i64,
    pub new_limit: i64,
}

/// The increases preflight found missing in `regions` (all of them when empty), in the
/// report's order (family, cores, Spot). Duplicates (the same quota twice) are dropped.
pub fn asks(report: &Report, regions: &[String]) -> Vec<Ask> {
    let mut out: Vec<Ask> = Vec::new();
    for (region, need) in report.quota_requests() {
        if !regions.is_empty() && !regions.iter().any(|r| r.eq_ignore_ascii_case(region)) {
            continue;
        }
        if out
            .iter()
            .any(|a| a.region == region && a.quota == need.quota)
        {
            continue;
        }
        out.push(Ask {
            region: region.to_string(),
            quota: need.quota.clone(),
            label: need.label.clone(),
            current_limit: need.current_limit,
            current_usage: need.current_usage,
            new_limit: need.new_limit_required,
        });
    }
    out
}

/// How a request ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum State {
    /// Not sent (dry run).
    NotSubmitted,
    Approved,
    Denied,
    /// Azure could not approve it automatically: it needs a support request.
    Escalated,
    /// Still in progress when gpuform stopped waiting.
    Pending,
    /// The subscription is not registered for `Microsoft.Quota` (409
    /// `MissingSubscriptionRegistration`): nothing was requested; register the provider.
    NotRegistered,
}

impl State {
    pub fn label(self) -> &'static str {
        match self {
            State::NotSubmitted => "not submitted",
            State::Approved => "approved",
            State::Denied => "denied",
            State::Escalated => "needs a support request",
            State::Pending => "in progress",
            State::NotRegistered => "provider not registered",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    #[serde(flatten)]
    pub ask: Ask,
    pub state: State,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The quotaRequests id, to look the request up later.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

/// How long to wait between polls and in all.
#[derive(Debug, Clone, Copy)]
pub struct Polling {
    /// Without `Retry-After`.
    pub interval: Duration,
    /// Never sleep longer than this at once, whatever `Retry-After` says.
    pub max_sleep: Duration,
    /// Stop following after this long (the request keeps going in Azure).
    pub max_total: Duration,
    /// Give up after this many failed polls in a row.
    pub max_failures: u32,
    /// Register `Microsoft.Quota` when Azure says the subscription is not registered for it
    /// (`--register-providers`), then send the request again.
    pub register_provider: bool,
}

impl Default for Polling {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(10),
            max_sleep: Duration::from_secs(60),
            max_total: Duration::from_secs(15 * 60),
            max_failures: 8,
            register_provider: false,
        }
    }
}

/// Read a quota answer (a PUT body or a poll): `Some(state, message)` when it says how the
/// request ended or stands, `None` when it does not say.
fn read_state(body: &Value) -> Option<(State, Option<String>)> {
    if body.is_null() {
        return None;
    }
    let req: QuotaRequest = serde_json::from_value(body.clone()).ok()?;
    let p = &req.properties;
    let message = p
        .error
        .as_ref()
        .map(|e| e.tree_lines(0).join("; "))
        .or_else(|| p.message.clone());
    match p.provisioning_state.as_deref() {
        Some(s) if s.eq_ignore_ascii_case("Succeeded") => Some((State::Approved, message)),
        Some(s) if s.eq_ignore_ascii_case("Failed") || s.eq_ignore_ascii_case("Invalid") => {
            let support = p
                .error
                .as_ref()
                .and_then(|e| e.code.as_deref())
                .is_some_and(|c| c.eq_ignore_ascii_case("ContactSupport"))
                || p.message
                    .iter()
                    .chain(p.error.as_ref().and_then(|e| e.message.as_ref()))
                    .any(|m| m.to_ascii_lowercase().contains("contact support"));
            Some((
                if support {
                    State::Escalated
                } else {
                    State::Denied
                },
                message,
            ))
        }
        Some(_) => Some((State::Pending, message)),
        // a quota resource (no provisioningState) with the limit: the PUT's final answer
        None if p.limit.is_some() => Some((State::Approved, None)),
        None => None,
    }
}

/// The quotaRequests id in a `Location` / `Azure-AsyncOperation` link or an id.
fn request_id(link: &str) -> Option<String> {
    let path = link.split('?').next()?;
    let mut segs = path.rsplit('/');
    let last = segs.next()?;
    let kind = segs.next()?;
    (kind.eq_ignore_ascii_case("quotaRequests") || kind.eq_ignore_ascii_case("operationsStatus"))
        .then(|| last.to_string())
}

/// The provider gpuform files quota requests with.
pub const QUOTA_PROVIDER: &str = crate::facts::quota::PROVIDER;

/// Azure refused because the subscription is not registered for a provider (409
/// `MissingSubscriptionRegistration`, `facts::arm::MISSING_REGISTRATION_SOURCE`). Not a denial:
/// nothing was looked at.
pub fn not_registered(e: &ArmError) -> bool {
    e.code
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case(crate::facts::arm::MISSING_REGISTRATION))
        || e.details.iter().any(|d| {
            d.code
                .as_deref()
                .is_some_and(|c| c.eq_ignore_ascii_case(crate::facts::arm::MISSING_REGISTRATION))
        })
}

/// Register `namespace` and wait until it says `Registered` (registration takes a minute or
/// two; `polling.max_total` bounds it).
pub async fn register(
    arm: &Arm,
    namespace: &str,
    polling: Polling,
    note: &mut (dyn FnMut(String) + Send),
) -> Result<(), ArmError> {
    use crate::azure::ArmApi;
    note(format!(
        "{namespace} is not registered for this subscription; registering it (--register-providers)"
    ));
    arm.register_provider(namespace).await?;
    let started = Instant::now();
    let mut last = String::new();
    loop {
        let state = arm.provider_state(namespace).await?;
        if state.eq_ignore_ascii_case("Registered") {
            note(format!("{namespace}: Registered"));
            return Ok(());
        }
        if state != last {
            note(format!("{namespace}: {state}"));
            last = state.clone();
        }
        if started.elapsed() + polling.interval > polling.max_total {
            return Err(ArmError::new(
                ErrorKind::Timeout,
                format!("register the resource provider {namespace}"),
                format!("still {state} after {}s", started.elapsed().as_secs()),
            )
            .with_help(format!(
                "check with `az provider show --namespace {namespace} --query registrationState` and run the request again when it says Registered"
            )));
        }
        tokio::time::sleep(polling.interval.min(polling.max_sleep)).await;
    }
}

/// A request Azure refused outright (4xx with an error code): a denial, not an access problem.
pub fn refused(e: &ArmError) -> bool {
    e.kind == ErrorKind::Http
        && matches!(e.status, Some(400) | Some(409) | Some(422))
        && e.code.is_some()
}

/// Submit one request and follow it. `note` gets progress lines. Errors are failures to
/// submit or follow (the request may still be running when following fails).
pub async fn submit(
    arm: &Arm,
    ask: &Ask,
    polling: Polling,
    note: &mut (dyn FnMut(String) + Send),
) -> Result<Outcome, ArmError> {
    let outcome = |state, message, request_id| Outcome {
        ask: ask.clone(),
        state,
        message,
        request_id,
    };
    let mut sent = arm
        .request_quota(&ask.region, &ask.quota, ask.new_limit)
        .await;
    if let Err(e) = &sent
        && not_registered(e)
    {
        if !polling.register_provider {
            return Ok(outcome(
                State::NotRegistered,
                Some(format!(
                    "{}; the subscription is not registered for {QUOTA_PROVIDER}, so nothing was requested",
                    e.summary()
                )),
                None,
            ));
        }
        register(arm, QUOTA_PROVIDER, polling, note).await?;
        sent = arm
            .request_quota(&ask.region, &ask.quota, ask.new_limit)
            .await;
    }
    let accepted: Accepted = match sent {
        Ok(a) => a,
        Err(e) if refused(&e) => {
            let mut lines = vec![e.summary()];
            lines.extend(e.detail_lines().into_iter().map(|l| l.trim().to_string()));
            return Ok(outcome(State::Denied, Some(lines.join("; ")), None));
        }
        Err(e) => return Err(e),
    };
    let mut link = accepted
        .location
        .clone()
        .or_else(|| accepted.async_operation.clone());
    let mut id = link.as_deref().and_then(request_id);
    if let Some((state, msg)) = read_state(&accepted.body)
        && state != State::Pending
    {
        return Ok(outcome(state, msg, id));
    }
    let Some(mut url) = link.clone() else {
        // 200/201 without a state or a link: Azure took the new limit
        return Ok(outcome(State::Approved, None, id));
    };
    note(format!(
        "{} in {}: submitted (new limit {}); following the request",
        ask.quota, ask.region, ask.new_limit
    ));
    let started = Instant::now();
    let mut wait = accepted.retry_after.unwrap_or(polling.interval);
    let mut failures = 0;
    let mut last_state = String::from("Accepted");
    loop {
        if started.elapsed() + wait.min(polling.max_sleep) > polling.max_total {
            return Ok(outcome(
                State::Pending,
                Some(format!(
                    "still {last_state} after {}s; Azure keeps working on it",
                    started.elapsed().as_secs()
                )),
                id,
            ));
        }
        tokio::time::sleep(wait.min(polling.max_sleep)).await;
        let polled = match arm
            .poll_link(
                "read the quota request",
                "Microsoft.Quota/quotaRequests/read (e.g. Reader on the subscription)",
                &url,
            )
            .await
        {
            Ok(p) => {
                failures = 0;
                p
            }
            Err(e) if e.is_fatal() => return Err(e),
            Err(e) => {
                failures += 1;
                if failures >= polling.max_failures {
                    return Err(e);
                }
                note(format!(
                    "{} in {}: could not read the request ({}); trying again",
                    ask.quota,
                    ask.region,
                    e.summary()
                ));
                wait = polling.interval;
                continue;
            }
        };
        if let Some(l) = polled.location.clone().filter(|_| polled.status == 202) {
            url = l;
            link = Some(url.clone());
        }
        if id.is_none() {
            id = link.as_deref().and_then(request_id);
        }
        if let Some(i) = polled.body.get("name").and_then(Value::as_str).filter(|_| {
            polled
                .body
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.eq_ignore_ascii_case("Microsoft.Quota/quotaRequests"))
        }) {
            id = Some(i.to_string());
        }
        let state = if polled.status == 202 {
            Some((State::Pending, None))
        } else {
            read_state(&polled.body)
        };
        match state {
            Some((State::Pending, _)) => {
                let s = polled
                    .body
                    .pointer("/properties/provisioningState")
                    .and_then(Value::as_str)
                    .unwrap_or("InProgress")
                    .to_string();
                if s != last_state {
                    note(format!("{} in {}: {s}", ask.quota, ask.region));
                    last_state = s;
                }
            }
            Some((state, msg)) => return Ok(outcome(state, msg, id)),
            // 200 with nothing to read: the operation is over and the limit was set
            None => return Ok(outcome(State::Approved, None, id)),
        }
        wait = polled.retry_after.unwrap_or(polling.interval);
    }
}

/// What to do when a request was not approved, in the order worth trying.
pub fn next_steps(o: &Outcome, portal: &str, subscription: &str) -> Vec<String> {
    let a = &o.ask;
    let mut v = Vec::new();
    match o.state {
        State::Escalated | State::Denied => {
            v.push(format!(
                "open a support request: {portal}/#create/Microsoft.Support → Issue type \"Service and subscription limits (quotas)\" → Quota type \"Compute-VM (cores-vCPUs) subscription limit increases\", {} in {}, new limit {} ({} more than the current limit of {}; {} in use)",
                a.label,
                a.region,
                a.new_limit,
                (a.new_limit - a.current_limit).max(0),
                a.current_limit,
                a.current_usage
            ));
            if a.quota
                .eq_ignore_ascii_case(crate::facts::quota::SPOT_VCPUS)
            {
                v.push("or run fewer Spot instances: lower capacity.max, or raise capacity.regularPercentAboveBase".into());
            } else {
                v.push("or make more of the pool Spot (capacity.regularBase / regularPercentAboveBase), which draws on lowPriorityCores instead".into());
            }
            v.push(format!(
                "or deploy to an alternate region that passes: gpuform preflight SPEC --region REGION (subscription {subscription})"
            ));
        }
        State::NotRegistered => {
            v.push(format!(
                "register the provider: az provider register --namespace {QUOTA_PROVIDER} --subscription {subscription} (or run again with --register-providers, which needs */register/action, e.g. Contributor); then run gpuform quota request again"
            ));
        }
        State::Pending => {
            let id = o.request_id.as_deref().unwrap_or("<id>");
            v.push(format!(
                "check on it later: az quota request status show --scope /subscriptions/{subscription}/providers/Microsoft.Compute/locations/{} --name {id}",
                a.region
            ));
        }
        _ => {}
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_spec_examples_read_as_states() {
        // specification/quota/.../stable/2023-02-01/examples/getQuotaRequestStatusFailed.json
        let failed = json!({"properties": {"provisioningState": "Failed", "message": "Request failed, please contact support.",
            "error": {"code": "ContactSupport", "message": "Request failed, please contact support."}}});
        assert_eq!(read_state(&failed).unwrap().0, State::Escalated);
        let denied = json!({"properties": {"provisioningState": "Invalid", "error": {"code": "QuotaReductionNotSupported", "message": "no"}}});
        assert_eq!(read_state(&denied).unwrap().0, State::Denied);
        let running = json!({"properties": {"provisioningState": "InProgress"}});
        assert_eq!(read_state(&running).unwrap().0, State::Pending);
        // putComputeOneSkuQuotaRequest.json's 200: the quota resource with its new limit
        let quota = json!({"properties": {"limit": {"limitObjectType": "LimitValue", "value": 10}, "name": {"value": "standardFSv2Family"}}});
        assert_eq!(read_state(&quota).unwrap().0, State::Approved);
        assert!(read_state(&Value::Null).is_none());
    }

    #[test]
    fn request_ids_come_from_the_links() {
        assert_eq!(
            request_id("https://management.azure.com/subscriptions/s/providers/Microsoft.Compute/locations/eastus/providers/Microsoft.Quota/operationsStatus/2B5C?api-version=2023-02-01").as_deref(),
            Some("2B5C")
        );
        assert_eq!(request_id("https://x/a/b?api-version=1"), None);
    }
}
