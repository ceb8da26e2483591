//! The dev box: a spec with `autoShutdown` and one instance (`capacity.max: 1`, no `autoscale`)
//! is one standalone VM that is stopped (deallocated) at night with its disks kept, not a scale
//! set scaled to zero (which deletes the instance, its disks and the installed driver).
//!
//! - `Microsoft.Compute/virtualMachines` with its own NIC (no public IP) in the workload subnet,
//!   the pool's identity, image, disks, driver extension, encryption and zone. Disks and NIC
//!   have `deleteOption: Detach`: even deleting the VM keeps the home directory.
//! - `Microsoft.DevTestLab/schedules` named `shutdown-computevm-<vm>` (the name Azure requires for
//!   a VM's auto-shutdown; REST `Microsoft.DevTestLab/schedules` 2018-09-15: `taskType`
//!   `ComputeVmShutdownTask`, `dailyRecurrence.time` `HHmm`, `timeZoneId` a Windows time zone,
//!   `notificationSettings.emailRecipient` semicolon-separated, `targetResourceId`). It
//!   deallocates the VM every day at `autoShutdown.time`.
//! - A Consumption Logic App (`Microsoft.Logic/workflows` 2019-05-01) with a system-assigned
//!   identity: a Recurrence trigger (frequency Week, `schedule.weekDays/hours/minutes`,
//!   `timeZone` with a `startTime` without offset, as the Recurrence trigger requires for a time
//!   zone) on the working days (every day with `weekends: false`) and an HTTP action
//!   `POST {resourceManager}{vm id}/start?api-version=…` authenticated with the managed identity
//!   (audience = the cloud's resource manager, from `environment()`).
//! - A role assignment of `Desktop Virtualization Power On Contributor`
//!   (489581de-a3bd-480d-9518-53dea7416b33: `virtualMachines/start/action`, `read`,
//!   `instanceView/read`, no deallocate, no write, no delete; Learn, built-in roles/compute) to
//!   the Logic App, scoped to the VM alone. `Virtual Machine Contributor` would also allow
//!   deleting or reconfiguring the VM.
//!
//! No autoscale setting: there is nothing to scale.

use serde::Serialize;

use super::common::Suppression;
use super::compute::{Compute, Extension};
use crate::spec::model::{Day, WorkloadSpec};
use crate::spec::timezones::parse_hhmm;

/// Built-in role `Desktop Virtualization Power On Contributor`.
pub const POWER_ON_CONTRIBUTOR: &str =
    crate::facts::roles::DESKTOP_VIRTUALIZATION_POWER_ON_CONTRIBUTOR.id;

/// Compute REST API version of the start call the Logic App makes (the VM resource's).
pub const START_API: &str = crate::facts::api::API.vmss;

/// Is the spec a dev box (one VM stopped at night) rather than a pool?
pub fn applies(s: &WorkloadSpec) -> bool {
    s.auto_shutdown.is_some() && s.capacity.max == 1 && s.autoscale.is_none()
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DevBox {
    pub vm_name: String,
    pub computer_name: String,
    pub nic_name: String,
    pub os_disk_name: String,
    /// One name per data disk of `compute.dataDisks`, in order.
    pub data_disk_names: Vec<String>,
    /// A VM lives in at most one zone: the first of `compute.zones`.
    pub zone: Option<String>,
    /// The spec lists more zones than the VM can use.
    pub zones_dropped: bool,
    /// The driver extension(s), and with GPU monitoring the collector, the Azure Monitor Agent
    /// and the collector's health probe ([`super::gpu_devbox::extend`]). Without it the
    /// application health extension only served a scale set's automatic repairs and is left out.
    pub extensions: Vec<VmExtension>,
    pub shutdown: Shutdown,
    pub start: Start,
    pub suppressions: Vec<Suppression>,
    /// Disks of the names above that exist already in the resource group (kept by
    /// `destroy --keep-data`): the VM attaches them (`createOption: Attach`) instead of creating
    /// them, since Azure refuses `FromImage` / `Empty` for a disk name that exists
    /// (`ConflictingUserInput`). Set by `deploy` after it reads the group; empty in `render`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept_disks: Vec<String>,
}

impl DevBox {
    /// The managed disks the VM creates: its OS disk, then one per data disk.
    pub fn disk_names(&self) -> Vec<String> {
        std::iter::once(self.os_disk_name.clone())
            .chain(self.data_disk_names.iter().cloned())
            .collect()
    }

    /// Is the disk `name` kept from an earlier deployment (to be attached)?
    pub fn is_kept(&self, name: &str) -> bool {
        self.kept_disks.iter().any(|k| k.eq_ignore_ascii_case(name))
    }
}

/// An extension resource of the VM. A VM has no `provisionAfterExtensions`: the order is the
/// resources' `dependsOn`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VmExtension {
    #[serde(flatten)]
    pub ext: Extension,
    /// Indexes (in [`DevBox::extensions`]) of the extensions this one waits for.
    pub after: Vec<usize>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Shutdown {
    /// `shutdown-computevm-<vmName>`.
    pub name: String,
    /// `HHmm`, local time.
    pub time: String,
    /// `HH:MM` as the spec wrote it, for comments.
    pub time_label: String,
    pub time_zone: String,
    /// Semicolon-separated alert emails; empty: notifications off.
    pub email_recipient: String,
    pub notify: bool,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Start {
    pub workflow_name: String,
    pub time_zone: String,
    pub week_days: Vec<&'static str>,
    pub hour: u32,
    pub minute: u32,
    /// `HH:MM` as the spec wrote it, for comments.
    pub time_label: String,
    pub role_id: &'static str,
    pub role_name: &'static str,
    pub api_version: &'static str,
}

impl DevBox {
    /// One line on what the spec renders, for `gpuform show` and `validate --explain`.
    pub fn describe(&self) -> String {
        let mut line = format!(
            "autoShutdown on one instance: a dev box VM {} (no scale set, no autoscale), deallocated at {} by the DevTest Labs schedule {} and started at {} on {} by the Logic App {} ({}); stopping keeps its OS and data disks",
            self.vm_name,
            self.shutdown.time_label,
            self.shutdown.name,
            self.start.time_label,
            self.start.week_days.join(", "),
            self.start.workflow_name,
            self.start.time_zone,
        );
        if self.extensions.iter().any(|e| e.ext.name == "GpuCollector") {
            // GPU monitoring (plan::gpu_devbox): a standalone VM has no automatic repairs
            line.push_str(&format!(
                "; GPU monitoring: the collector's health probe shows in the VM's instance view, with no automatic repairs on a standalone VM (after a GPU faults alert, `az vm redeploy --name {}` moves it to another host and keeps its disks)",
                self.vm_name
            ));
        }
        line
    }
}

pub(super) fn plan(name: &str, s: &WorkloadSpec, compute: &Compute) -> Option<DevBox> {
    if !applies(s) {
        return None;
    }
    let sd = s.auto_shutdown.as_ref()?;
    let stop = parse_hhmm(&sd.time)?;
    let start = parse_hhmm(&sd.start_time)?;
    let vm_name = format!("vm-{name}");
    let computer_name = if compute.linux {
        name.to_string()
    } else {
        // Windows computer names have at most 15 characters
        let mut n: String = name.chars().take(15).collect();
        while n.ends_with('-') {
            n.pop();
        }
        n
    };
    let days: &[Day] = if sd.weekends {
        &Day::WEEKDAYS
    } else {
        &Day::ALL
    };
    let emails = &s.monitoring.alert_emails;
    let mut suppressions = vec![Suppression {
        check: "CKV_AZURE_50",
        reason: "the GPU driver is installed by the NVIDIA/AMD VM extension (Microsoft.HpcCompute); a GPU dev box without it has no usable GPU".into(),
    }];
    if !compute.linux {
        suppressions.push(Suppression {
            check: "CKV_AZURE_178",
            reason: "Windows dev box: there is no SSH; sign-in uses the adminPassword parameter (secure, no default) over the spec's inbound rules only".into(),
        });
    }
    Some(DevBox {
        kept_disks: Vec::new(),
        os_disk_name: format!("osdisk-{vm_name}"),
        data_disk_names: compute
            .data_disks
            .iter()
            .map(|d| format!("datadisk-{vm_name}-{}", d.lun))
            .collect(),
        nic_name: format!("nic-{vm_name}"),
        computer_name,
        zone: compute.zones.first().cloned(),
        zones_dropped: compute.zones.len() > 1,
        extensions: compute
            .extensions
            .iter()
            .filter(|e| e.name != "HealthExtension")
            .cloned()
            .map(|mut e| {
                e.provision_after.clear();
                VmExtension {
                    ext: e,
                    after: Vec::new(),
                }
            })
            .collect(),
        shutdown: Shutdown {
            name: format!("shutdown-computevm-{vm_name}"),
            time: format!("{:02}{:02}", stop / 60, stop % 60),
            time_label: sd.time.clone(),
            time_zone: sd.time_zone.clone(),
            email_recipient: emails.join(";"),
            notify: !emails.is_empty(),
        },
        start: Start {
            workflow_name: format!("logic-{name}-start"),
            time_zone: sd.time_zone.clone(),
            week_days: days.iter().map(|d| d.as_str()).collect(),
            hour: start / 60,
            minute: start % 60,
            time_label: sd.start_time.clone(),
            role_id: POWER_ON_CONTRIBUTOR,
            role_name: "Desktop Virtualization Power On Contributor",
            api_version: START_API,
        },
        vm_name,
        suppressions,
    })
}
