//! Gathering: every section read from ARM concurrently, each degrading on its own.

use serde_json::Value;
use time::OffsetDateTime;

use crate::azure::{Arm, ArmApi, ArmError};
use crate::plan::Plan;
use crate::spec::model::Spec;

use super::activity::activity_of;
use super::drift::{DriftRequest, drift};
use super::instances::{count, power_state, priority_of, zone_of};
use super::model::{Alert, Autoscale, Cost, DevBoxStatus, Queue, SettingState, Status, VmState};
use super::schedule::{active_profile, devbox_schedule, rfc3339};
use super::section::Section;

/// What the status needs besides ARM.
pub struct Inputs<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
    pub rg: &'a str,
    pub now: OffsetDateTime,
    /// `gpuform cost`'s expected monthly total (and currency), when the prices allow it.
    pub estimate: Option<(f64, String)>,
}

/// Gather every section (concurrently). `Err` only for fatal errors.
pub async fn gather(
    arm: &Arm,
    inp: &Inputs<'_>,
    drift_request: Option<&DriftRequest>,
) -> Result<Status, ArmError> {
    let plan = inp.plan;
    let rg = inp.rg;
    let sub = arm.subscription().to_string();
    let vmss = plan.compute.name.clone();
    let default_priority = match &plan.compute.spot {
        Some(s) if s.mix.is_none() => "Spot",
        _ => "Regular",
    };
    let devbox = plan.devbox.as_ref();
    let instances = async {
        if devbox.is_some() {
            return Ok(None);
        }
        arm.pool_vms(rg, &vmss, plan.compute.flexible)
            .await
            .map(|v| Some(count(&v, default_priority)))
    };
    let vm_state = async {
        let Some(d) = devbox else {
            return Ok(None);
        };
        let r = arm
            .vm_instance_view(rg, &d.vm_name, crate::plan::API.vmss)
            .await
            .and_then(|vm| {
                let vm = vm.ok_or_else(|| {
                    let mut e = ArmError::new(
                        crate::azure::ErrorKind::Http,
                        format!("read the VM {}", d.vm_name),
                        "it does not exist",
                    );
                    e.status = Some(404);
                    e
                })?;
                Ok(VmState {
                    power_state: power_state(&vm),
                    priority: priority_of(&vm, default_priority),
                    zone: zone_of(&vm),
                })
            });
        Section::from(r).map(Some)
    };
    let autoscale = async {
        if devbox.is_some() {
            return Ok(None);
        }
        let Some(asp) = &plan.autoscale else {
            return Ok(Some(Section::missing(
                "the spec has no autoscale setting (a fixed-size pool)",
            )));
        };
        let Some((name, min, max, default)) = active_profile(asp, inp.now) else {
            return Ok(Some(Section::missing(
                "no profile applies (check the schedules' time zones)",
            )));
        };
        let setting = Section::from(arm.autoscale_setting(rg, &asp.name).await.and_then(|v| {
            let v = v.ok_or_else(|| {
                let mut e = ArmError::new(
                    crate::azure::ErrorKind::Http,
                    format!("read the autoscale setting {}", asp.name),
                    "it does not exist",
                );
                e.status = Some(404);
                e
            })?;
            let profiles = v
                .pointer("/properties/profiles")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            Ok(SettingState {
                enabled: v
                    .pointer("/properties/enabled")
                    .and_then(Value::as_bool)
                    .unwrap_or(true),
                profiles: profiles.len(),
                has_active_profile: profiles
                    .iter()
                    .any(|p| p.get("name").and_then(Value::as_str) == Some(name.as_str())),
            })
        }))?;
        Ok::<_, ArmError>(Some(Section::Ok(Autoscale {
            active_profile: name,
            min,
            max,
            default,
            setting,
        })))
    };
    let queue = async {
        let (Some(q), Some(asp)) = (&plan.queue, &plan.autoscale) else {
            return Ok(None);
        };
        let Some(rule) = asp
            .rules
            .iter()
            .find(|r| r.divide_per_instance)
            .or(asp.rules.first())
        else {
            return Ok(None);
        };
        let qrg = q.resource_group.as_deref().unwrap_or(rg);
        let (id, filter) = match q.kind {
            crate::plan::QueueKind::ServiceBus => (
                format!(
                    "/subscriptions/{sub}/resourceGroups/{qrg}/providers/Microsoft.ServiceBus/namespaces/{}",
                    q.parent
                ),
                rule.dimension
                    .as_ref()
                    .map(|d| format!("{} eq '{}'", d.name, d.value)),
            ),
            crate::plan::QueueKind::Storage => (
                format!(
                    "/subscriptions/{sub}/resourceGroups/{qrg}/providers/Microsoft.Storage/storageAccounts/{}/services/queue/queues/{}",
                    q.parent, q.queue
                ),
                None,
            ),
        };
        let r = arm
            .metric_now(
                &id,
                rule.metric_name,
                rule.time_aggregation,
                filter.as_deref(),
            )
            .await
            .map(|len| (rule.metric_name.to_string(), len, rule.threshold));
        Ok::<_, ArmError>(Some(r))
    };
    let since = rfc3339(inp.now - time::Duration::hours(24));
    let until = rfc3339(inp.now);
    let activity = async {
        arm.activity_log(rg, &since, &until)
            .await
            .map(|events| activity_of(&events))
    };
    let alerts = async {
        arm.alerts(rg).await.map(|list| {
            list.iter()
                .map(|a| {
                    let e = a
                        .pointer("/properties/essentials")
                        .cloned()
                        .unwrap_or(Value::Null);
                    let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                    Alert {
                        name: a
                            .get("name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        severity: s("severity"),
                        condition: s("monitorCondition"),
                        started: s("startDateTime"),
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    let cost = async { arm.month_to_date_cost(rg).await };
    let drift_section = async {
        match drift_request {
            Some(d) => drift(arm, rg, d).await,
            None => Ok(Section::missing("skipped (--no-drift)")),
        }
    };
    let reporting = super::telemetry::reporting(arm, plan, rg);
    let serving = super::serving::gather(arm, plan, rg);
    let (
        instances,
        vm_state,
        autoscale,
        queue,
        activity,
        alerts,
        cost,
        drift_section,
        reporting,
        serving,
    ) = futures::join!(
        instances,
        vm_state,
        autoscale,
        queue,
        activity,
        alerts,
        cost,
        drift_section,
        reporting,
        serving
    );

    let instances = match instances.transpose() {
        Some(r) => Some(Section::from(r)?),
        None => None,
    };
    let running = match &instances {
        Some(Section::Ok(i)) => Some(i.by_state.get("running").copied().unwrap_or(0)),
        _ => None,
    };
    let vm_state = vm_state?;
    let running_now = match (&vm_state, running) {
        (Some(Section::Ok(v)), _) => Some(usize::from(v.power_state.contains("running"))),
        (Some(_), _) => None,
        (None, r) => r,
    };
    let telemetry = super::telemetry::section(
        running_now,
        reporting,
        plan.gpu.as_ref().map(|g| g.delivery),
    )?;
    let dev_box = match (devbox, vm_state) {
        (Some(d), Some(state)) => {
            let (shutdown, start) = devbox_schedule(d, inp.now);
            Some(DevBoxStatus {
                vm: d.vm_name.clone(),
                state,
                shutdown,
                start,
            })
        }
        _ => None,
    };
    let queue = match queue? {
        None => Section::missing("the spec has no queue-driven autoscale"),
        Some(r) => Section::from(r.map(|(metric, len, target)| Queue {
            metric,
            length: len,
            per_instance: match (len, running) {
                (Some(l), Some(n)) if n > 0 => Some(l / n as f64),
                _ => None,
            },
            target_per_instance: Some(target),
        }))?,
    };
    let budget = plan.monitoring.budget.as_ref().map(|b| b.amount);
    let cost = Section::from(
        cost.and_then(|c| {
            c.ok_or_else(|| {
                ArmError::new(
                    crate::azure::ErrorKind::Decode,
                    "read the month-to-date cost",
                    "the answer has no cost column",
                )
            })
        })
        .map(|(mtd, currency)| {
            let day = f64::from(inp.now.day());
            let days = f64::from(inp.now.month().length(inp.now.year()));
            Cost {
                month_to_date: mtd,
                currency,
                budget,
                estimate_monthly: inp.estimate.as_ref().map(|e| e.0),
                estimate_to_date: inp.estimate.as_ref().map(|e| e.0 * day / days),
                estimate_currency: inp.estimate.as_ref().map(|e| e.1.clone()),
            }
        }),
    )?;
    let standby = match &plan.standby {
        None => None,
        Some(p) => {
            let id = super::standby::runtime_view_id(&sub, rg, p);
            let r = arm.get_resource(&id, p.api_version).await.and_then(|v| {
                let v = v.ok_or_else(|| {
                    let mut e = ArmError::new(
                        crate::azure::ErrorKind::Http,
                        format!("read the standby pool {}", p.name),
                        "it does not exist",
                    );
                    e.status = Some(404);
                    e
                })?;
                Ok(super::standby::from_runtime_view(p, &v))
            });
            Some(Section::from(r)?)
        }
    };
    Ok(Status {
        standby,
        schema_version: 1,
        spec: inp.spec.metadata.name.clone(),
        resource_group: rg.to_string(),
        subscription: sub,
        at: rfc3339(inp.now),
        scale_set: devbox.is_none().then_some(vmss),
        instances,
        autoscale: autoscale?,
        dev_box,
        queue,
        activity: Section::from(activity)?,
        alerts: Section::from(alerts)?,
        cost,
        drift: drift_section?,
        telemetry,
        serving: serving?,
    })
}
