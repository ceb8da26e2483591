//! `gpuform status`: one read-only screen about a running pool. Every section is gathered on
//! its own and degrades to "not available: <reason>" when Azure refuses it (403), does not have
//! it (404) or fails after the retries; only errors that would fail every call (credential,
//! 401, TLS, no connection) end the command.
//!
//! Names and ids come from the resolved plan (scale set, autoscale setting, queue, budget);
//! for a dev box (`plan.devbox`: one VM stopped and started on a schedule) the VM's power
//! state, priority and zone (its instance view) and the next shutdown and start from the plan's
//! schedules replace the scale set's instances and the autoscale profile;
//! the active autoscale profile is computed from the spec's profiles at "now" in their time
//! zones (the same week the cost estimate walks) and compared with the setting Azure has.

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

pub mod standby;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use crate::azure::operate::Vm;
use crate::azure::{Arm, ArmApi, ArmError};
use crate::plan::Plan;
use crate::spec::model::Spec;
use crate::spec::schedule;

/// A section, or why it is missing.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Section<T> {
    Ok(T),
    NotAvailable {
        #[serde(rename = "notAvailable")]
        not_available: String,
    },
}

impl<T> Section<T> {
    fn from(r: Result<T, ArmError>) -> Result<Self, ArmError> {
        match r {
            Ok(v) => Ok(Section::Ok(v)),
            Err(e) if e.is_fatal() => Err(e),
            Err(e) => {
                let mut reason = e.summary();
                if let Some(h) = &e.help {
                    reason.push_str(&format!(" ({h})"));
                }
                Ok(Section::NotAvailable {
                    not_available: reason,
                })
            }
        }
    }

    fn missing(reason: impl Into<String>) -> Self {
        Section::NotAvailable {
            not_available: reason.into(),
        }
    }
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Instances {
    pub total: usize,
    pub by_state: BTreeMap<String, usize>,
    pub by_priority: BTreeMap<String, usize>,
    pub by_zone: BTreeMap<String, usize>,
    pub by_health: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Autoscale {
    /// The profile the spec's schedules put in force now (computed).
    pub active_profile: String,
    pub min: u32,
    pub max: u32,
    pub default: u32,
    /// What Azure has: enabled, and whether the setting carries that profile.
    pub setting: Section<SettingState>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SettingState {
    pub enabled: bool,
    pub profiles: usize,
    pub has_active_profile: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Queue {
    pub metric: String,
    pub length: Option<f64>,
    /// What the scale rules compare with their threshold (the length per running instance).
    pub per_instance: Option<f64>,
    pub target_per_instance: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// When the operation started (its first event).
    pub time: String,
    pub what: String,
    /// The operation's final status: `Succeeded`, `Failed`, `Canceled`, or the latest one
    /// (`Started`, `InProgress`, ...) while it runs.
    pub status: String,
}

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

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Activity {
    pub spot_evictions: Vec<Event>,
    pub scale_actions: Vec<Event>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Alert {
    pub name: String,
    pub severity: String,
    pub condition: String,
    pub started: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    pub month_to_date: f64,
    pub currency: String,
    pub budget: Option<f64>,
    /// `gpuform cost`'s expected monthly total, and that pro-rated to today.
    pub estimate_monthly: Option<f64>,
    pub estimate_to_date: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate_currency: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub schema_version: u32,
    pub spec: String,
    pub resource_group: String,
    pub subscription: String,
    pub at: String,
    /// The pool's scale set (absent for a dev box).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_set: Option<String>,
    /// Instances of the scale set (absent for a dev box: see `devBox`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instances: Option<Section<Instances>>,
    /// The autoscale profile (absent for a dev box: it has nothing to scale).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub autoscale: Option<Section<Autoscale>>,
    /// The dev box (`plan.devbox`): one VM stopped and started on a schedule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dev_box: Option<DevBoxStatus>,
    pub queue: Section<Queue>,
    pub activity: Section<Activity>,
    pub alerts: Section<Vec<Alert>>,
    pub cost: Section<Cost>,
    /// ARM what-if of the spec's template against the group: what changed outside gpuform.
    pub drift: Section<Drift>,
}

/// The dev box: the VM's state as Azure reports it and its schedule as the plan renders it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DevBoxStatus {
    pub vm: String,
    pub state: Section<VmState>,
    /// The DevTest Labs schedule that deallocates the VM.
    pub shutdown: NextRun,
    /// The Logic App that starts it.
    pub start: NextRun,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VmState {
    /// `running`, `deallocated`, `stopped`, ... (the instance view's `PowerState/*`).
    pub power_state: String,
    /// Regular or Spot.
    pub priority: String,
    /// `zone N` or `regional`.
    pub zone: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextRun {
    /// The schedule's resource name.
    pub name: String,
    /// `HH:MM` on which days, in the schedule's time zone.
    pub when: String,
    pub time_zone: String,
    /// The next run after now (UTC, RFC 3339), with the zone's daylight-saving rules.
    pub next: Option<String>,
    /// The same in the schedule's time zone (`2026-12-02 19:00`).
    pub next_local: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    /// "2 to modify, 28 no change".
    pub summary: String,
    /// `Modify TYPE NAME` / `Create ...` / `Delete ...` lines for what is not NoChange/Ignore.
    pub changes: Vec<String>,
}

/// The what-if request for drift: the deployment request as deploy would send it.
pub struct DriftRequest {
    pub request: crate::deploy::Request,
    pub secrets: Vec<(String, String)>,
    /// Why drift cannot be computed (a secure parameter missing from the environment).
    pub unavailable: Option<String>,
}

/// What-if of the spec against the group, summarised (reuses deploy's what-if).
pub async fn drift(arm: &Arm, rg: &str, d: &DriftRequest) -> Result<Section<Drift>, ArmError> {
    if let Some(why) = &d.unavailable {
        return Ok(Section::missing(why.clone()));
    }
    let mut request = d.request.clone();
    if let Some(budget) = request.budget_name()
        && let Ok(Some(start)) = arm.budget_start_date(rg, &budget).await
    {
        request.keep_budget_start(&start);
    }
    let polling = crate::deploy::Polling {
        interval: std::time::Duration::from_secs(2),
        ..Default::default()
    };
    let r = async {
        let accepted = arm
            .post_what_if(rg, &request.name, request.body(&d.secrets))
            .await?;
        crate::deploy::what_if(arm, accepted, polling).await
    }
    .await;
    Section::from(r.map(|res| {
        let raw = res.properties.map(|p| p.changes).unwrap_or_default();
        let w = crate::deploy::whatif::WhatIf::new(
            &request.name,
            rg,
            arm.subscription(),
            res.status.as_deref().unwrap_or("Succeeded"),
            raw.clone(),
        );
        let changes = raw
            .iter()
            .filter(|c| !matches!(c.change_type.as_str(), "NoChange" | "Ignore"))
            .map(|c| {
                let (t, n) = crate::deploy::whatif::split_id(&c.resource_id);
                format!("{} {t} {n}", c.change_type)
            })
            .collect();
        Drift {
            summary: w.summary_line(),
            changes,
        }
    }))
}

/// What the status needs besides ARM.
pub struct Inputs<'a> {
    pub spec: &'a Spec,
    pub plan: &'a Plan,
    pub rg: &'a str,
    pub now: OffsetDateTime,
    /// `gpuform cost`'s expected monthly total (and currency), when the prices allow it.
    pub estimate: Option<(f64, String)>,
}

fn code_tail(code: &str) -> &str {
    code.split_once('/').map_or(code, |(_, t)| t)
}

/// Count the instances by state, priority, zone and health.
pub fn count(vms: &[Vm], default_priority: &str) -> Instances {
    let mut i = Instances {
        total: vms.len(),
        ..Default::default()
    };
    for vm in vms {
        let view = vm.properties.instance_view.as_ref();
        *i.by_state.entry(power_state(vm)).or_default() += 1;
        *i.by_priority
            .entry(priority_of(vm, default_priority))
            .or_default() += 1;
        *i.by_zone.entry(zone_of(vm)).or_default() += 1;
        let health = view
            .and_then(|v| v.vm_health.as_ref())
            .and_then(|h| h.status.as_ref())
            .map(|s| code_tail(&s.code).to_string())
            .unwrap_or_else(|| "not reported".into());
        *i.by_health.entry(health).or_default() += 1;
    }
    i
}

/// The power state of one VM from its instance view (the provisioning state when the view
/// has none).
fn power_state(vm: &Vm) -> String {
    vm.properties
        .instance_view
        .as_ref()
        .and_then(|v| {
            v.statuses
                .iter()
                .find(|s| s.code.starts_with("PowerState/"))
                .map(|s| code_tail(&s.code).to_string())
        })
        .or_else(|| {
            vm.properties
                .provisioning_state
                .clone()
                .map(|p| p.to_ascii_lowercase())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn priority_of(vm: &Vm, default_priority: &str) -> String {
    let prio = vm
        .properties
        .priority
        .clone()
        .unwrap_or_else(|| default_priority.to_string());
    if prio.eq_ignore_ascii_case("Low") {
        "Spot".into()
    } else {
        prio
    }
}

fn zone_of(vm: &Vm) -> String {
    vm.zones
        .first()
        .map(|z| format!("zone {z}"))
        .unwrap_or_else(|| "regional".into())
}

/// The first time after `now` that is `minute` (after midnight, local) on one of `days`
/// (Monday = 0) in `zone`, with its daylight-saving rules (the simulator's Windows → IANA map
/// and jiff's bundled tz database; a local time that falls in a spring-forward gap moves
/// forward, as DevTest Labs and Logic Apps do). Returns (UTC, local).
pub fn next_run(
    now: OffsetDateTime,
    zone: &jiff::tz::TimeZone,
    minute: u32,
    days: &[u8],
) -> Option<(OffsetDateTime, OffsetDateTime)> {
    let now_ts = jiff::Timestamp::from_second(now.unix_timestamp()).ok()?;
    let today = now_ts.to_zoned(zone.clone()).date();
    let (h, m) = (
        i8::try_from(minute / 60).ok()?,
        i8::try_from(minute % 60).ok()?,
    );
    (0..=7)
        .filter_map(|d| today.checked_add(jiff::Span::new().days(d)).ok())
        .filter(|date| days.contains(&(date.weekday().to_monday_zero_offset() as u8)))
        .filter_map(|date| date.at(h, m, 0, 0).to_zoned(zone.clone()).ok())
        .find(|t| t.timestamp() > now_ts)
        .and_then(|t| {
            let utc = OffsetDateTime::from_unix_timestamp(t.timestamp().as_second()).ok()?;
            let off = time::UtcOffset::from_whole_seconds(t.offset().seconds()).ok()?;
            Some((utc, utc.to_offset(off)))
        })
}

fn day_index(name: &str) -> Option<u8> {
    [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ]
    .iter()
    .position(|d| *d == name)
    .map(|i| i as u8)
}

fn next_of(
    now: OffsetDateTime,
    name: &str,
    time_zone: &str,
    minute: u32,
    days: &[u8],
    when: String,
) -> NextRun {
    let next = crate::simulate::tz::zone(time_zone).and_then(|z| next_run(now, &z, minute, days));
    NextRun {
        name: name.to_string(),
        when,
        time_zone: time_zone.to_string(),
        next: next.map(|(u, _)| rfc3339(u)),
        next_local: next.map(|(_, l)| {
            format!(
                "{:04}-{:02}-{:02} {:02}:{:02}",
                l.year(),
                u8::from(l.month()),
                l.day(),
                l.hour(),
                l.minute()
            )
        }),
    }
}

/// The dev box's schedule from the plan: next shutdown (every day) and next start (its days).
pub fn devbox_schedule(d: &crate::plan::DevBox, now: OffsetDateTime) -> (NextRun, NextRun) {
    let stop = d
        .shutdown
        .time
        .parse::<u32>()
        .ok()
        .map(|t| t / 100 * 60 + t % 100);
    let all: Vec<u8> = (0..7).collect();
    let shutdown = match stop {
        Some(m) => next_of(
            now,
            &d.shutdown.name,
            &d.shutdown.time_zone,
            m,
            &all,
            format!("{} every day", d.shutdown.time_label),
        ),
        None => NextRun {
            name: d.shutdown.name.clone(),
            when: d.shutdown.time_label.clone(),
            time_zone: d.shutdown.time_zone.clone(),
            next: None,
            next_local: None,
        },
    };
    let days: Vec<u8> = d
        .start
        .week_days
        .iter()
        .filter_map(|w| day_index(w))
        .collect();
    let when = if days.len() == 7 {
        format!("{} every day", d.start.time_label)
    } else {
        format!("{} on {}", d.start.time_label, d.start.week_days.join(", "))
    };
    let start = next_of(
        now,
        &d.start.workflow_name,
        &d.start.time_zone,
        d.start.hour * 60 + d.start.minute,
        &days,
        when,
    );
    (shutdown, start)
}

/// Minute of the week in UTC, Monday 00:00 = 0 (the frame of [`schedule::week`]).
pub fn minute_of_week(t: OffsetDateTime) -> u32 {
    let t = t.to_offset(time::UtcOffset::UTC);
    u32::from(t.weekday().number_days_from_monday()) * 1440
        + u32::from(t.hour()) * 60
        + u32::from(t.minute())
}

/// The profile in force at `now`: (name, min, max, default).
pub fn active_profile(spec: &Spec, now: OffsetDateTime) -> Option<(String, u32, u32, u32)> {
    let profiles = schedule::profiles(&spec.spec);
    let m = minute_of_week(now);
    let seg = schedule::week(&profiles)
        .into_iter()
        .find(|s| s.start <= m && m < s.end)?;
    let p = profiles.get(seg.profile)?;
    Some((p.name.clone(), p.min, p.max, p.default))
}

fn rfc3339(t: OffsetDateTime) -> String {
    t.replace_nanosecond(0)
        .unwrap_or(t)
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
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
        let Some((name, min, max, default)) = active_profile(inp.spec, inp.now) else {
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
                rule.entity_dimension
                    .as_ref()
                    .map(|e| format!("EntityName eq '{e}'")),
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
    let activity = async {
        arm.activity_log(rg, &since).await.map(|events| {
            let mut spot = Vec::new();
            let mut scale = Vec::new();
            // count operations, not events (an operation logs Started, then Succeeded/Failed)
            for o in operations(&events) {
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
        })
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
    let (instances, vm_state, autoscale, queue, activity, alerts, cost, drift_section) = futures::join!(
        instances,
        vm_state,
        autoscale,
        queue,
        activity,
        alerts,
        cost,
        drift_section
    );

    let instances = match instances.transpose() {
        Some(r) => Some(Section::from(r)?),
        None => None,
    };
    let running = match &instances {
        Some(Section::Ok(i)) => Some(i.by_state.get("running").copied().unwrap_or(0)),
        _ => None,
    };
    let dev_box = match (devbox, vm_state?) {
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
    Ok(Status {
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
    })
}

// ---------------------------------------------------------------------------------------------
// Output

/// `time  what`, with the final status when it is not `Succeeded` (`(Failed)`, `(InProgress)`).
fn event_line(e: &Event) -> String {
    if e.status.eq_ignore_ascii_case("Succeeded") {
        format!("{}  {}", e.time, e.what)
    } else {
        format!("{}  {} ({})", e.time, e.what, e.status)
    }
}

fn counts(m: &BTreeMap<String, usize>) -> String {
    m.iter()
        .map(|(k, v)| format!("{v} {k}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn money(v: f64, cur: &str) -> String {
    format!("{v:.2} {cur}").trim_end().to_string()
}

/// Lines of each section: (title, lines).
fn sections(s: &Status) -> Vec<(&'static str, Vec<String>)> {
    fn na<T>(sec: &Section<T>, f: impl FnOnce(&T) -> Vec<String>) -> Vec<String> {
        match sec {
            Section::Ok(v) => f(v),
            Section::NotAvailable { not_available } => {
                vec![format!("not available: {not_available}")]
            }
        }
    }
    let mut out = Vec::new();
    if let Some(d) = &s.dev_box {
        let mut v = na(&d.state, |st| {
            vec![
                format!("{}: {}", d.vm, st.power_state),
                format!("priority: {}", st.priority),
                format!("zone: {}", st.zone),
            ]
        });
        if let Section::NotAvailable { .. } = d.state {
            v[0] = format!("{}: {}", d.vm, v[0]);
        }
        let run = |what: &str, r: &NextRun| {
            format!(
                "{what} {} ({}): {}",
                r.when,
                r.time_zone,
                match (&r.next_local, &r.next) {
                    (Some(l), Some(u)) => format!("next {l} ({u}) by {}", r.name),
                    _ => format!("next unknown (time zone not known) by {}", r.name),
                }
            )
        };
        v.push(run("shutdown (deallocate)", &d.shutdown));
        v.push(run("start", &d.start));
        out.push(("Dev box", v));
    }
    if let Some(inst) = &s.instances {
        out.push((
            "Instances",
            na(inst, |i| {
                if i.total == 0 {
                    return vec!["none".into()];
                }
                vec![
                    format!("{} in all: {}", i.total, counts(&i.by_state)),
                    format!("priority: {}", counts(&i.by_priority)),
                    format!("zones: {}", counts(&i.by_zone)),
                    format!("health: {}", counts(&i.by_health)),
                ]
            }),
        ));
    }
    if let Some(asc) = &s.autoscale {
        out.push((
            "Autoscale",
            na(asc, |a| {
                let mut v = vec![format!(
                    "active profile (from the spec's schedules, now): {} — min {}, max {}, default {}",
                    a.active_profile, a.min, a.max, a.default
                )];
                v.push(match &a.setting {
                    Section::Ok(st) => format!(
                        "setting in Azure: {}, {} profiles{}",
                        if st.enabled { "enabled" } else { "DISABLED" },
                        st.profiles,
                        if st.has_active_profile {
                            ""
                        } else {
                            "; it does not have this profile (drift: redeploy)"
                        }
                    ),
                    Section::NotAvailable { not_available } => {
                        format!("setting in Azure: not available: {not_available}")
                    }
                });
                v
            }),
        ));
    }
    out.extend(vec![
        (
            "Queue",
            na(&s.queue, |q| {
                let len = q
                    .length
                    .map_or("no data in the last 15 minutes".into(), |l| {
                        format!("{l:.0}")
                    });
                let per = q.per_instance.map_or("-".into(), |p| format!("{p:.1}"));
                vec![format!(
                    "{}: {len} now; {per} per running instance (scale-out threshold {})",
                    q.metric,
                    q.target_per_instance.map_or("-".into(), |t| t.to_string())
                )]
            }),
        ),
        (
            "Spot evictions (24 h)",
            na(&s.activity, |a| {
                if a.spot_evictions.is_empty() {
                    vec!["none".into()]
                } else {
                    a.spot_evictions.iter().map(event_line).collect()
                }
            }),
        ),
        (
            "Last scale actions (24 h)",
            na(&s.activity, |a| {
                if a.scale_actions.is_empty() {
                    vec!["none".into()]
                } else {
                    a.scale_actions.iter().map(event_line).collect()
                }
            }),
        ),
        (
            "Alerts fired (24 h)",
            na(&s.alerts, |al| {
                if al.is_empty() {
                    vec!["none".into()]
                } else {
                    al.iter()
                        .map(|a| {
                            format!("{}  {} {} ({})", a.started, a.severity, a.name, a.condition)
                        })
                        .collect()
                }
            }),
        ),
        (
            "Cost",
            na(&s.cost, |c| {
                let mut v = vec![format!(
                    "month to date: {}",
                    money(c.month_to_date, &c.currency)
                )];
                if let Some(b) = c.budget {
                    v.push(format!(
                        "budget: {} ({:.0}% used)",
                        money(b, &c.currency),
                        if b > 0.0 {
                            c.month_to_date / b * 100.0
                        } else {
                            0.0
                        }
                    ));
                }
                if let (Some(m), Some(d)) = (c.estimate_monthly, c.estimate_to_date) {
                    v.push(format!(
                        "gpuform cost estimate: {} a month, {} by today",
                        money(m, c.estimate_currency.as_deref().unwrap_or("")),
                        money(d, c.estimate_currency.as_deref().unwrap_or(""))
                    ));
                }
                v
            }),
        ),
        (
            "Drift (what-if of the spec against the group)",
            na(&s.drift, |d| {
                let mut v = vec![d.summary.clone()];
                v.extend(d.changes.iter().cloned());
                v
            }),
        ),
    ]);
    out
}

/// `scale set vmss-x` or `dev box VM vm-x`.
fn what(s: &Status, q: &str) -> String {
    match (&s.dev_box, &s.scale_set) {
        (Some(d), _) => format!("dev box VM {q}{}{q}", d.vm),
        (None, Some(v)) => format!("scale set {q}{v}{q}"),
        (None, None) => "no scale set".into(),
    }
}

pub fn text(s: &Status) -> String {
    let mut out = format!(
        "{} in {} ({}), {}\n",
        s.spec,
        s.resource_group,
        what(s, ""),
        s.at
    );
    for (title, lines) in sections(s) {
        out.push_str(&format!("\n{title}\n"));
        for l in lines {
            out.push_str(&format!("  {l}\n"));
        }
    }
    out
}

pub fn markdown(s: &Status) -> String {
    let mut out = format!(
        "### gpuform status: `{}` in `{}`\n\n_{}; {}_\n",
        s.spec,
        s.resource_group,
        s.at,
        what(s, "`")
    );
    for (title, lines) in sections(s) {
        out.push_str(&format!("\n**{title}**\n\n"));
        for l in lines {
            out.push_str(&format!("- {l}\n"));
        }
    }
    out
}

pub fn json(s: &Status) -> String {
    format!("{}\n", serde_json::to_string_pretty(s).expect("serialises"))
}

#[cfg(test)]
mod tests {
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
        let ops = super::operations(&events);
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
        assert_eq!(super::operations(&[lone, other]).len(), 2);
        // the text shows a status other than Succeeded
        let e = super::Event {
            time: "t".into(),
            what: "scale in 8 -> 6: r".into(),
            status: "Failed".into(),
        };
        assert_eq!(super::event_line(&e), "t  scale in 8 -> 6: r (Failed)");
    }

    #[test]
    fn the_dev_box_schedule_follows_daylight_saving() {
        let zone = crate::simulate::tz::zone("W. Europe Standard Time").unwrap();
        let every_day: Vec<u8> = (0..7).collect();
        // Friday 3 July 2026, 12:00 UTC: 19:00 CEST is 17:00 UTC (standard time would say 18:00)
        let summer = OffsetDateTime::from_unix_timestamp(1_783_080_000).unwrap();
        let (utc, local) = next_run(summer, &zone, 19 * 60, &every_day).unwrap();
        assert_eq!(
            (utc.hour(), local.hour(), local.offset().whole_hours()),
            (17, 19, 2)
        );
        // Friday 4 December 2026, 12:00 UTC: 19:00 CET is 18:00 UTC
        let winter = OffsetDateTime::from_unix_timestamp(1_796_385_600).unwrap();
        let (utc, local) = next_run(winter, &zone, 19 * 60, &every_day).unwrap();
        assert_eq!(
            (utc.hour(), local.hour(), local.offset().whole_hours()),
            (18, 19, 1)
        );
        // Monday-to-Friday starts skip the weekend: Saturday 08:00 → Monday 08:00
        let saturday = OffsetDateTime::from_unix_timestamp(1_796_385_600 + 86_400).unwrap();
        let (_, local) = next_run(saturday, &zone, 8 * 60, &[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(local.weekday(), time::Weekday::Monday);
    }

    use super::*;

    #[test]
    fn minute_of_week_counts_from_monday_utc() {
        let t = time::macros::datetime!(2026-12-02 10:30 UTC); // a Wednesday
        assert_eq!(minute_of_week(t), 2 * 1440 + 630);
        let t = time::macros::datetime!(2026-12-07 00:00 +08:00); // Monday 00:00 in Beijing = Sunday 16:00 UTC
        assert_eq!(minute_of_week(t), 6 * 1440 + 16 * 60);
    }
}
