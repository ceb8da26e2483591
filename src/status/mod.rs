//! `gpuform status`: one read-only screen about a running pool. Every section is gathered on
//! its own and degrades to "not available: <reason>" when Azure refuses it (403), does not have
//! it (404) or fails after the retries; only errors that would fail every call (credential,
//! 401, TLS, no connection) end the command.
//!
//! Names and ids come from the resolved plan (scale set, autoscale setting, queue, budget);
//! for a dev box (`plan.devbox`: one VM stopped and started on a schedule) the VM's power
//! state, priority and zone (its instance view) and the next shutdown and start from the plan's
//! schedules replace the scale set's instances and the autoscale profile;
//! the active autoscale profile is the one `simulate` puts in force at "now" (the plan's
//! profiles in their Windows time zones with daylight saving) and is compared with the setting
//! Azure has; the GPU telemetry section counts the running instances that wrote no
//! `GpuTelemetry_CL` row lately (the missing-telemetry alert's condition); a serving pool's
//! frontend shows its requests, healthy hosts and latency from Azure Monitor metrics
//! ([`serving`]).

// `ArmError` carries the whole error tree; it is built once per failed call.
#![allow(clippy::result_large_err)]

mod activity;
mod drift;
mod follow;
mod gather;
mod instances;
mod model;
mod render;
mod schedule;
mod section;
pub mod serving;
pub mod standby;
mod telemetry;

pub use activity::{Operation, operations};
pub use drift::{DriftRequest, drift};
pub use follow::group_to_read;
pub use gather::{Inputs, gather};
pub use instances::count;
pub use model::{
    Activity, Alert, Autoscale, Cost, DevBoxStatus, Drift, Event, Instances, NextRun, Queue,
    SettingState, Status, VmState,
};
pub use render::{json, markdown, text};
pub use schedule::{active_profile, devbox_schedule, minute_of_week, next_run};
pub use section::Section;
pub use telemetry::Telemetry;
