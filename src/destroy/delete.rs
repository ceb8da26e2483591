//! Deleting: one resource at a time (following Azure's asynchronous answers, backing off while
//! another operation holds the resource), a Flexible set's data disks detached first, and which
//! resources are still there.

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::inventory::Target;
use crate::azure::deployments::Accepted;
use crate::azure::operate::Deleted;
use crate::azure::{Arm, ArmError};

/// How one deletion ended.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Deletion {
    pub id: String,
    #[serde(rename = "type")]
    pub resource_type: String,
    pub name: String,
    /// `deleted`, `alreadyGone`, `failed`, `notAttempted`.
    pub result: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ArmError>,
    pub seconds: f64,
}

/// Polling of asynchronous deletes.
#[derive(Debug, Clone, Copy)]
pub struct Polling {
    pub interval: Duration,
    pub max_sleep: Duration,
    pub max_failures: u32,
    /// Stop following one deletion after this long.
    pub max_total: Duration,
}

impl Default for Polling {
    fn default() -> Self {
        Self {
            interval: Duration::from_secs(5),
            max_sleep: Duration::from_secs(60),
            max_failures: 8,
            max_total: Duration::from_secs(60 * 60),
        }
    }
}

/// Follow a 202: `Azure-AsyncOperation` (`{"status": ...}`) or `Location` (202 while running,
/// 200/204 when done), honouring `Retry-After`.
pub async fn follow(arm: &Arm, what: &str, a: &Accepted, polling: Polling) -> Result<(), ArmError> {
    let by_location = a.async_operation.is_none();
    let Some(mut url) = a.async_operation.clone().or_else(|| a.location.clone()) else {
        return Ok(()); // 202 without a link: accepted; nothing to follow
    };
    let started = Instant::now();
    let mut wait = a.retry_after.unwrap_or(polling.interval);
    let mut failures = 0;
    loop {
        if started.elapsed() > polling.max_total {
            return Err(ArmError::new(
                crate::azure::ErrorKind::Timeout,
                what,
                format!("still running after {}s", started.elapsed().as_secs()),
            ));
        }
        tokio::time::sleep(wait.min(polling.max_sleep)).await;
        let p = match arm
            .poll_link(what, "read on the resource (e.g. Reader)", &url)
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
                wait = polling.interval;
                continue;
            }
        };
        wait = p.retry_after.unwrap_or(polling.interval);
        if by_location {
            if p.status == 202 {
                if let Some(l) = p.location {
                    url = l;
                }
                continue;
            }
            return Ok(());
        }
        match p.lro_status() {
            Some(s) if s.eq_ignore_ascii_case("Succeeded") => return Ok(()),
            Some(s) if s.eq_ignore_ascii_case("Failed") || s.eq_ignore_ascii_case("Canceled") => {
                let detail = p.body.get("error").and_then(|e| {
                    serde_json::from_value::<crate::azure::ErrorDetail>(e.clone()).ok()
                });
                let mut e = ArmError::new(
                    crate::azure::ErrorKind::Http,
                    what,
                    format!("the deletion ended {s}"),
                );
                if let Some(d) = detail {
                    e.code = d.code;
                    e.message = d.message.or(e.message);
                    e.details = d.details;
                }
                return Err(e);
            }
            _ => {}
        }
    }
}

/// Is this a 409 that says another operation on the resource (or one it depends on) is still
/// running? Transient: the same DELETE is sent again after a back-off
/// (`facts::arm::TRANSIENT_CONFLICT_CODES`).
pub fn is_conflicting_operation(e: &ArmError) -> bool {
    e.status == Some(409)
        && e.code.as_deref().is_some_and(|c| {
            crate::facts::arm::TRANSIENT_CONFLICT_CODES
                .iter()
                .any(|x| x.eq_ignore_ascii_case(c))
        })
}

/// The back-off before the `n`th retry (1-based) of a conflicting operation: the poll interval,
/// doubled each time, at most `max_sleep`.
pub fn conflict_backoff(polling: Polling, n: u32) -> Duration {
    polling
        .interval
        .saturating_mul(1u32 << n.saturating_sub(1).min(16))
        .min(polling.max_sleep)
}

/// Delete one target and follow it to the end. A 409 `AnotherOperationInProgress` is retried
/// with back-off (up to `max_failures` times, within `max_total`); throttling (429) and 5xx are
/// retried by the HTTP pipeline, honouring `Retry-After`.
pub async fn delete_one(arm: &Arm, t: &Target, api: &str, polling: Polling) -> Deletion {
    let started = Instant::now();
    let what = format!("delete {} {}", t.resource_type, t.name);
    let mut conflicts = 0u32;
    let r = loop {
        match arm.delete_resource(&t.id, api).await {
            Ok(Deleted::Done) => break Ok("deleted"),
            Ok(Deleted::Absent) => break Ok("alreadyGone"),
            Ok(Deleted::Accepted(a)) => {
                break follow(arm, &what, &a, polling).await.map(|_| "deleted");
            }
            Err(e)
                if is_conflicting_operation(&e)
                    && conflicts < polling.max_failures
                    && started.elapsed() < polling.max_total =>
            {
                conflicts += 1;
                let wait = conflict_backoff(polling, conflicts);
                eprintln!(
                    "destroy: {} {}: another operation on it is in progress ({}); trying again in {} ({} of {})",
                    t.resource_type,
                    t.name,
                    e.code.as_deref().unwrap_or("Conflict"),
                    crate::azure::http::fmt_duration(wait),
                    conflicts,
                    polling.max_failures
                );
                tokio::time::sleep(wait).await;
            }
            Err(mut e) => {
                if is_conflicting_operation(&e) && e.help.is_none() {
                    e.help = Some(format!(
                        "another operation on it was still running after {conflicts} retries; run destroy again when it has finished (what is gone counts as done)"
                    ));
                }
                break Err(e);
            }
        }
    };
    let (result, error) = match r {
        Ok(s) => (s, None),
        Err(e) => ("failed", Some(e)),
    };
    Deletion {
        id: t.id.clone(),
        resource_type: t.resource_type.clone(),
        name: t.name.clone(),
        result,
        error,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// `--keep-data` on a Flexible scale set: switch every instance's data disks to
/// `deleteOption: Detach` before the scale set goes, so the disks stay in the group. Returns the
/// number of disks kept.
pub async fn keep_instance_disks(
    arm: &Arm,
    rg: &str,
    vmss: &str,
    polling: Polling,
) -> Result<usize, ArmError> {
    let vms = arm.pool_vms(rg, vmss, true).await?;
    let mut kept = 0;
    for vm in vms.iter().filter(|v| !v.id.is_empty()) {
        let (n, accepted) = arm.detach_data_disks(&vm.id).await?;
        if let Some(a) = accepted {
            follow(arm, &format!("update {}", vm.name), &a, polling).await?;
        }
        kept += n;
    }
    Ok(kept)
}

/// Which of `targets` exist now (GET each; an error counts as existing, the DELETE will tell).
pub async fn existing(
    arm: &Arm,
    targets: &[Target],
    apis: &BTreeMap<String, String>,
) -> Result<Vec<bool>, ArmError> {
    let checks = targets.iter().map(|t| async move {
        // the template's version of the type, else gpuform's own (never another type's: each
        // type has its own list); without one the GET cannot be made and the DELETE will tell
        let Some(api) = api_for(apis, &t.resource_type) else {
            return Ok(true);
        };
        match arm.get_resource(&t.id, &api).await {
            Ok(v) => Ok(v.is_some()),
            Err(e) if e.is_fatal() || e.status == Some(403) => Err(e),
            Err(_) => Ok(true),
        }
    });
    futures::future::join_all(checks)
        .await
        .into_iter()
        .collect()
}

/// The API version to address `resource_type` with: the rendered template's, else the one
/// gpuform renders or reads it with ([`crate::facts::api::version_for`]).
pub fn api_for(apis: &BTreeMap<String, String>, resource_type: &str) -> Option<String> {
    apis.get(&resource_type.to_ascii_lowercase())
        .cloned()
        .or_else(|| crate::facts::api::version_for(resource_type).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_the_template_lacks_takes_gpuforms_version_of_that_type_never_a_fallback() {
        let apis: BTreeMap<String, String> = [(
            "microsoft.keyvault/vaults".to_string(),
            "2025-05-01".to_string(),
        )]
        .into();
        assert_eq!(
            api_for(&apis, "Microsoft.KeyVault/vaults").as_deref(),
            Some("2025-05-01")
        );
        assert_eq!(
            api_for(&apis, "Microsoft.Compute/disks").as_deref(),
            Some(crate::facts::api::DISKS_API)
        );
        assert_eq!(api_for(&apis, "Microsoft.Web/sites"), None);
    }

    #[test]
    fn another_operation_in_progress_is_transient_and_backs_off() {
        let mut e = ArmError::new(crate::azure::ErrorKind::Http, "delete x", "conflict");
        e.status = Some(409);
        e.code = Some("AnotherOperationInProgress".into());
        assert!(is_conflicting_operation(&e));
        e.code = Some("CannotDeleteResource".into());
        assert!(!is_conflicting_operation(&e));
        e.code = Some("AnotherOperationInProgress".into());
        e.status = Some(400);
        assert!(!is_conflicting_operation(&e));
        let p = Polling::default();
        assert_eq!(conflict_backoff(p, 1), Duration::from_secs(5));
        assert_eq!(conflict_backoff(p, 2), Duration::from_secs(10));
        assert_eq!(conflict_backoff(p, 3), Duration::from_secs(20));
        assert_eq!(conflict_backoff(p, 30), p.max_sleep);
    }
}
