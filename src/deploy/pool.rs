//! The standby pool around a deployment (issue 38):
//!
//! - **after** a deployment that succeeded, when the GPU telemetry policy associates the pool's
//!   VMs: the standby provider builds the pooled VMs asynchronously after the pool's PUT, and a
//!   DeployIfNotExists assignment acts on a resource's create or update only, about five minutes
//!   after it is assigned ([`crate::facts::monitoring::ASSIGNMENT_APPLIES`]). A VM built before
//!   the assignment applied and after the template's remediation scanned is never associated.
//!   So deploy reads the pool's runtime view ([`facts::RUNTIME_VIEW`]) until the pool holds its
//!   VMs in its state, bounded by `--pool-wait`, and then starts a remediation of its own name
//!   ([`crate::facts::monitoring::REMEDIATION_ACTIVE`]); when it cannot, it says so with the
//!   `az policy remediation create` line to run later;
//! - **before** a deployment that moves the pool between Deallocated and Hibernated, which Azure
//!   refuses ([`facts::STATE_TRANSITIONS`]: "first transition to a running pool then update"):
//!   deploy sets the pool Running ([`facts::UPDATE`]), waits until the runtime view counts every
//!   VM Running, and then deploys the spec's state.

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Polling;
use super::context::Azure;
use super::progress::fmt_elapsed;
use crate::diag::failure::Failure;
use crate::facts::standby as facts;
use crate::plan::standby::StandbyPool;
use crate::preflight::standby::group_scope;

/// A pool's VMs by state (lower case, summed over zones), from its runtime view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    by_state: BTreeMap<String, u64>,
    /// The view's `provisioningState`.
    provisioning: Option<String>,
}

impl Counts {
    /// `properties.instanceCountSummary[].instanceCountsByState[] {state, count}`.
    pub fn from_view(view: &Value) -> Self {
        let mut by_state: BTreeMap<String, u64> = BTreeMap::new();
        let zones = view
            .pointer("/properties/instanceCountSummary")
            .and_then(Value::as_array);
        for zone in zones.into_iter().flatten() {
            let states = zone.get("instanceCountsByState").and_then(Value::as_array);
            for s in states.into_iter().flatten() {
                if let (Some(state), Some(n)) = (
                    s.get("state").and_then(Value::as_str),
                    s.get("count").and_then(Value::as_u64),
                ) {
                    *by_state.entry(state.to_ascii_lowercase()).or_default() += n;
                }
            }
        }
        Self {
            by_state,
            provisioning: view
                .pointer("/properties/provisioningState")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    }

    /// VMs counted in `state`.
    pub fn of(&self, state: &str) -> u64 {
        self.by_state
            .get(&state.to_ascii_lowercase())
            .copied()
            .unwrap_or(0)
    }

    /// Every VM of the pool in `state` (none on the way there or elsewhere; those being deleted
    /// aside), at least `min` of them, and the pool not being provisioned. A VM counted Running
    /// in a Deallocated or Hibernated pool "may still be installing extensions"
    /// ([`facts::RUNTIME_VIEW_RUNNING`]): the pool is still filling.
    pub fn settled(&self, state: &str, min: u64) -> bool {
        let others = self
            .by_state
            .iter()
            .filter(|(s, _)| !s.eq_ignore_ascii_case(state) && s.as_str() != "deleting")
            .map(|(_, n)| n)
            .sum::<u64>();
        let provisioned = self
            .provisioning
            .as_deref()
            .is_none_or(|p| p.eq_ignore_ascii_case("Succeeded"));
        others == 0 && self.of(state) >= min && provisioned
    }

    /// `2 Deallocated, 1 Creating` (the states with VMs, in the runtime view's order).
    pub fn line(&self) -> String {
        let mut parts: Vec<String> = facts::RUNTIME_STATES
            .iter()
            .filter(|s| self.of(s) > 0)
            .map(|s| format!("{} {s}", self.of(s)))
            .collect();
        // a state a later API version adds
        parts.extend(
            self.by_state
                .iter()
                .filter(|(s, n)| {
                    **n > 0
                        && !facts::RUNTIME_STATES
                            .iter()
                            .any(|k| k.eq_ignore_ascii_case(s))
                })
                .map(|(s, n)| format!("{n} {s}")),
        );
        if parts.is_empty() {
            "no VMs yet".into()
        } else {
            parts.join(", ")
        }
    }
}

/// How a wait for the pool ended.
#[derive(Debug)]
pub enum Waited {
    Settled(Counts),
    /// The bound passed; the last counts read, if any.
    TimedOut(Option<Counts>),
    /// The runtime view could not be read (the last error), after [`Polling::max_failures`]
    /// failed reads in a row.
    Unreadable(String),
    /// Ctrl-C.
    Interrupted,
}

/// The pool's resource id in `rg`.
pub fn pool_id(sub: &str, rg: &str, pool: &StandbyPool) -> String {
    format!(
        "{}/providers/{}/{}",
        group_scope(sub, rg),
        pool.resource_type,
        pool.name
    )
}

/// Read the runtime view until every VM is in `state` (at least `min` of them), for at most
/// `limit`; one progress line on stderr whenever the counts change.
async fn wait(
    azure: &Azure<'_>,
    rg: &str,
    pool: &StandbyPool,
    (state, min): (&str, u64),
    limit: Duration,
    polling: &Polling,
) -> Waited {
    let id = pool_id(azure.subscription, rg, pool);
    let start = Instant::now();
    let mut last: Option<Counts> = None;
    let mut said = String::new();
    let mut failures = 0u32;
    loop {
        match azure.arm.pool_runtime_view(&id, pool.api_version).await {
            Ok(Some(view)) => {
                failures = 0;
                let counts = Counts::from_view(&view);
                if counts.settled(state, min) {
                    crate::ci_eprintln!(
                        "deploy: standby pool {}: {} ({})",
                        pool.name,
                        counts.line(),
                        fmt_elapsed(start.elapsed())
                    );
                    return Waited::Settled(counts);
                }
                let line = counts.line();
                if line != said {
                    crate::ci_eprintln!(
                        "deploy: standby pool {}: {line}; waiting for {} {state} ({})",
                        pool.name,
                        min.max(1),
                        fmt_elapsed(start.elapsed())
                    );
                    said = line;
                }
                last = Some(counts);
            }
            Ok(None) => {
                // the deployment made the pool: a view not found is not "not yet" for long
                failures += 1;
                if said != "-" {
                    crate::ci_eprintln!(
                        "deploy: standby pool {}: no runtime view yet ({})",
                        pool.name,
                        fmt_elapsed(start.elapsed())
                    );
                    said = "-".into();
                }
                if failures >= polling.max_failures {
                    return Waited::Unreadable(format!("not found {failures} times in a row"));
                }
            }
            Err(e) => {
                failures += 1;
                crate::ci_eprintln!(
                    "deploy: warning: could not read the runtime view of the standby pool {} ({}; {failures} of {} tries)",
                    pool.name,
                    e.summary(),
                    polling.max_failures
                );
                if failures >= polling.max_failures {
                    return Waited::Unreadable(e.summary());
                }
            }
        }
        let spent = start.elapsed();
        if spent >= limit {
            return Waited::TimedOut(last);
        }
        tokio::time::sleep(polling.interval.min(limit - spent)).await;
    }
}

/// [`wait`], ended by Ctrl-C.
fn wait_blocking(
    azure: &Azure<'_>,
    rg: &str,
    pool: &StandbyPool,
    target: (&str, u64),
    limit: Duration,
    polling: &Polling,
) -> Waited {
    azure.rt.block_on(async {
        tokio::select! {
            w = wait(azure, rg, pool, target, limit, polling) => w,
            _ = tokio::signal::ctrl_c() => Waited::Interrupted,
        }
    })
}

/// The GPU telemetry policy whose remediation follows the pool.
pub struct Telemetry<'a> {
    /// The policy assignment's name (in the resource group).
    pub assignment: &'a str,
    /// The remediation names' prefix ([`crate::plan::gpu_monitoring::remediation_prefix`]).
    pub prefix: &'a str,
}

/// After a deployment that succeeded: wait for the pool to hold its VMs (`limit`; `None`:
/// `--no-pool-wait`), then start a remediation so that the pooled VMs get the telemetry
/// association. Returns the follow-up when that did not happen (also said on stderr).
pub fn fill_then_remediate(
    azure: &Azure<'_>,
    rg: &str,
    pool: &StandbyPool,
    telemetry: &Telemetry,
    limit: Option<Duration>,
    polling: &Polling,
) -> Option<String> {
    let name = crate::plan::gpu_monitoring::remediation_name(
        telemetry.prefix,
        &super::context::utc_stamp(),
    );
    let scope = group_scope(azure.subscription, rg);
    let later = |why: String| {
        let text = format!(
            "{why}; pooled VMs built after the deployment's remediation scanned have no GPU telemetry association (the policy acts on a VM's creation only once its assignment applies) until a remediation runs: once the pool is full (az standby-vm-pool status --resource-group {rg} --name {}) run\n  az policy remediation create --resource-group {rg} --name {name} --policy-assignment {} --resource-discovery-mode ReEvaluateCompliance",
            pool.name, telemetry.assignment
        );
        crate::ci_eprintln!("deploy: follow-up needed: {text}");
        Some(text)
    };
    let Some(limit) = limit else {
        return later(format!(
            "--no-pool-wait: deploy did not wait for the standby pool {} to fill",
            pool.name
        ));
    };
    let (state, min) = (pool.vm_state, u64::from(pool.min_ready));
    crate::ci_eprintln!(
        "deploy: waiting up to {} for the standby pool {} to hold {min} {state} VM{} (the provider builds them after the deployment; {}), then a GPU telemetry remediation for them",
        fmt_elapsed(limit),
        pool.name,
        if min == 1 { "" } else { "s" },
        if limit.as_secs() == u64::from(facts::FILL_MINUTES) * 60 {
            format!(
                "the {}-minute bound is an assumption: {}",
                facts::FILL_MINUTES,
                facts::FILL_TIME.what
            )
        } else {
            "--pool-wait".to_string()
        }
    );
    match wait_blocking(azure, rg, pool, (state, min), limit, polling) {
        Waited::Settled(_) => {}
        Waited::TimedOut(last) => {
            return later(format!(
                "the standby pool {} did not hold {min} {state} VMs within {} ({})",
                pool.name,
                fmt_elapsed(limit),
                last.map_or_else(|| "its runtime view never answered".into(), |c| c.line())
            ));
        }
        Waited::Unreadable(e) => {
            return later(format!(
                "the runtime view of the standby pool {} could not be read ({e})",
                pool.name
            ));
        }
        Waited::Interrupted => {
            return later(format!(
                "interrupted while waiting for the standby pool {} (the deployment succeeded)",
                pool.name
            ));
        }
    }
    let assignment_id = format!(
        "{scope}/providers/Microsoft.Authorization/policyAssignments/{}",
        telemetry.assignment
    );
    let api = crate::facts::api::API.policy_remediations;
    match azure.rt.block_on(
        azure
            .arm
            .start_remediation(&scope, &name, &assignment_id, api),
    ) {
        Ok(()) => {
            crate::ci_eprintln!(
                "deploy: GPU telemetry remediation {name} started for the pooled VMs (az policy remediation show --resource-group {rg} --name {name})"
            );
            None
        }
        Err(e) => later(format!(
            "the GPU telemetry remediation {name} could not be started ({})",
            e.summary()
        )),
    }
}

/// Before a deployment that moves the pool from `from` to the spec's state between Deallocated
/// and Hibernated: set it Running and wait (at most `limit`) until every VM runs. `Ok(false)`:
/// interrupted (said on stderr). `steps` is the refusal with the steps by hand, for when the
/// sequence cannot go on.
pub fn through_running(
    azure: &Azure<'_>,
    rg: &str,
    pool: &StandbyPool,
    from: &str,
    limit: Duration,
    polling: &Polling,
    steps: Failure,
) -> Result<bool, Failure> {
    let running = facts::VmState::Running.azure_name();
    let id = pool_id(azure.subscription, rg, pool);
    crate::ci_eprintln!(
        "deploy: the standby pool {} is {from}; Azure does not change a pool between Deallocated and Hibernated, so it goes through {running} first ({})",
        pool.name,
        facts::STATE_TRANSITIONS.what
    );
    if let Err(e) = azure
        .rt
        .block_on(azure.arm.set_pool_state(&id, pool.api_version, running))
    {
        return Err(steps.cause(format!(
            "setting the pool {running} failed: {}",
            e.summary()
        )));
    }
    crate::ci_eprintln!(
        "deploy: set the standby pool {} to {running}; waiting up to {} until its VMs run",
        pool.name,
        fmt_elapsed(limit)
    );
    let why = match wait_blocking(azure, rg, pool, (running, 0), limit, polling) {
        Waited::Settled(_) => {
            crate::ci_eprintln!(
                "deploy: the standby pool {} runs; deploying {}",
                pool.name,
                pool.vm_state
            );
            return Ok(true);
        }
        Waited::Interrupted => {
            crate::ci_eprintln!(
                "\ninterrupted: the standby pool {} was set to {running} and the deployment was not started; run gpuform deploy again once its VMs run (it sets {})",
                pool.name,
                pool.vm_state
            );
            return Ok(false);
        }
        Waited::TimedOut(last) => format!(
            "the pool was set to {running} but its VMs did not all run within {} ({})",
            fmt_elapsed(limit),
            last.map_or_else(|| "no runtime view".into(), |c| c.line())
        ),
        Waited::Unreadable(e) => {
            format!("the pool was set to {running} but its runtime view could not be read ({e})")
        }
    };
    Err(steps.cause(why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn view(zones: &[&[(&str, u64)]], provisioning: &str) -> Value {
        json!({"properties": {
            "instanceCountSummary": zones.iter().enumerate().map(|(i, z)| json!({
                "zone": i + 1,
                "instanceCountsByState": z.iter().map(|(s, n)| json!({"state": s, "count": n})).collect::<Vec<_>>()
            })).collect::<Vec<_>>(),
            "provisioningState": provisioning
        }})
    }

    #[test]
    fn counts_sum_zones_and_ignore_the_case_of_states() {
        let c = Counts::from_view(&view(
            &[
                &[("creating", 1), ("Deallocated", 1)],
                &[("Deallocated", 2), ("Deleting", 1)],
            ],
            "Succeeded",
        ));
        assert_eq!(c.of("deallocated"), 3);
        assert_eq!(c.line(), "1 Creating, 3 Deallocated, 1 Deleting");
        assert!(!c.settled("Deallocated", 3), "one still being created");
        let c = Counts::from_view(&view(
            &[&[("Deallocated", 3), ("Deleting", 1)]],
            "Succeeded",
        ));
        assert!(c.settled("Deallocated", 3));
        assert!(!c.settled("Deallocated", 4));
        // a VM counted Running in a deallocated pool is still being built
        let c = Counts::from_view(&view(&[&[("Running", 1), ("Deallocated", 3)]], "Succeeded"));
        assert!(!c.settled("Deallocated", 3));
        // the pool itself still being updated
        let c = Counts::from_view(&view(&[&[("Running", 2)]], "Updating"));
        assert!(!c.settled("Running", 0));
        assert_eq!(Counts::from_view(&json!({})).line(), "no VMs yet");
    }
}
