//! The GPU scale set: orchestration, image, disks, security profile, spot mix, extensions.

use serde::Serialize;
use serde_json::{Map, Value};

use super::common::{Cmk, Suppression};
use crate::catalog::GpuSize;
use crate::catalog::drivers::{DriverPlan, SettingValue};
use crate::spec::model::{Orchestration, OsType, ProbeProtocol, SecurityType, WorkloadSpec};
use crate::spec::resolve::ResolvedImage;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compute {
    pub name: String,
    pub vm_size: String,
    /// Instances at deployment (`capacity.default`); autoscale takes over afterwards.
    pub capacity: u32,
    pub zones: Vec<String>,
    pub flexible: bool,
    /// InfiniBand pools: one Uniform scale set in one placement group.
    pub infiniband: bool,
    pub computer_name_prefix: String,
    pub linux: bool,
    pub image: ResolvedImage,
    pub os_disk: Disk,
    pub data_disks: Vec<Disk>,
    /// Bind the disks to the disk encryption set (customer-managed key).
    pub disk_encryption_set: bool,
    pub encryption_at_host: bool,
    /// Trusted Launch with Secure Boot off (the driver extension builds unsigned modules).
    pub trusted_launch: bool,
    /// `securityProfile.securityType`, always explicit: `Standard` or `TrustedLaunch`. Without
    /// it, a subscription registered for Trusted Launch as default
    /// ([`crate::facts::arm::TRUSTED_LAUNCH_DEFAULT_FEATURE`]; and
    /// every subscription from Compute API 2025-11-01) creates Gen2 scale sets as Trusted
    /// Launch with Secure Boot on, which the Linux GRID driver and the driver extensions'
    /// unsigned modules do not survive (Learn, "Trusted Launch for Azure VMs"). `Standard`
    /// is accepted from API 2025-11-01 (the version this render uses) without the
    /// UseStandardSecurityType feature older versions need.
    pub security_type: &'static str,
    pub accelerated_networking: bool,
    pub nic_name: String,
    pub spot: Option<Spot>,
    pub health: Option<Health>,
    pub extensions: Vec<Extension>,
    /// Base64 of the cloud-init file (not secret: it is readable on every VM anyway).
    pub custom_data: Option<String>,
    pub suppressions: Vec<Suppression>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Disk {
    pub lun: u32,
    pub size_gib: u32,
    pub storage_account_type: &'static str,
    pub caching: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Spot {
    pub eviction_policy: &'static str,
    /// USD per hour; -1 = up to the pay-as-you-go price (no price eviction).
    pub max_price: f64,
    /// Flexible only: regular instances first, then the percentage above the base.
    pub mix: Option<PriorityMix>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PriorityMix {
    pub base_regular: u32,
    pub regular_percent_above_base: u32,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    /// Automatic repairs waits this long after a state change (ISO 8601).
    pub grace_period: String,
}

/// A VM extension in the scale set's profile.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Extension {
    pub name: String,
    pub publisher: &'static str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub type_handler_version: &'static str,
    pub enable_automatic_upgrade: bool,
    pub settings: Map<String, Value>,
    pub provision_after: Vec<String>,
    pub comment: Option<String>,
    /// Azure Monitor Agent: `settings.authentication.managedIdentity` names the pool's
    /// user-assigned identity (`mi_res_id`), which the emitters spell as a reference.
    pub identity_auth: bool,
}

/// The scale set's resource name.
pub fn scale_set_name(name: &str) -> String {
    format!("vmss-{name}")
}

pub(super) fn plan(
    name: &str,
    s: &WorkloadSpec,
    size: &GpuSize,
    image: &ResolvedImage,
    driver: &DriverPlan,
    custom_data: Option<String>,
    cmk: Option<&Cmk>,
) -> Compute {
    let c = &s.compute;
    let cap = &s.capacity;
    let flexible = c.orchestration == Orchestration::Flexible;
    let linux = image.os == OsType::Linux;
    let mut extensions = Vec::new();
    if let Some(ext) = &driver.extension {
        let mut settings = Map::new();
        for (k, v) in &ext.settings {
            settings.insert(
                (*k).to_string(),
                match v {
                    SettingValue::Bool(b) => Value::Bool(*b),
                    SettingValue::Str(s) => Value::String(s.clone()),
                },
            );
        }
        let mut comment = format!("GPU driver: {} ({})", driver.kind.as_str(), ext.kind);
        if let Some(v) = &driver.driver_version {
            let what = if driver.kind == crate::catalog::drivers::DriverKind::Cuda && linux {
                "CUDA"
            } else {
                "driver"
            };
            comment.push_str(&format!(", {what} {v}"));
        }
        if let Some(r) = driver.pin_reason {
            comment.push_str(&format!("; pinned because {r}"));
        }
        extensions.push(Extension {
            name: ext.kind.to_string(),
            publisher: ext.publisher,
            kind: ext.kind,
            type_handler_version: ext.type_handler_version,
            // the driver extension does not take automatic extension upgrades
            enable_automatic_upgrade: false,
            settings,
            provision_after: Vec::new(),
            comment: Some(comment),
            identity_auth: false,
        });
    }
    // a hibernated standby pool: its Linux VMs need the guest set up to hibernate (a swap file
    // that holds the RAM, the resume settings); the portal installs the extension, a template
    // must (facts::extensions::LINUX_HIBERNATE)
    let hibernated = crate::spec::standby::of(s)
        .is_some_and(|sb| sb.state == crate::spec::standby::StandbyState::Hibernated);
    if hibernated && linux {
        let ext = crate::facts::extensions::LINUX_HIBERNATE;
        extensions.push(Extension {
            name: ext.kind.to_string(),
            publisher: ext.publisher,
            kind: ext.kind,
            type_handler_version: ext.type_handler_version,
            // as Learn installs it (`--enable-auto-upgrade true`)
            enable_automatic_upgrade: true,
            settings: Map::new(),
            provision_after: Vec::new(),
            comment: Some(
                "Hibernation of the standby pool's VMs: configures the guest (a swap file that holds the RAM, resume from it); only the portal installs it by itself."
                    .into(),
            ),
            identity_auth: false,
        });
    }
    let health = c.health_probe.as_ref().map(|p| {
        let mut settings = Map::new();
        settings.insert("protocol".into(), Value::String(p.protocol.as_str().into()));
        settings.insert("port".into(), Value::from(p.port));
        if p.protocol != ProbeProtocol::Tcp {
            settings.insert(
                "requestPath".into(),
                Value::String(p.path.clone().unwrap_or_else(|| "/".into())),
            );
        }
        settings.insert("intervalInSeconds".into(), Value::from(5));
        settings.insert("numberOfProbes".into(), Value::from(1));
        extensions.push(Extension {
            name: "HealthExtension".into(),
            publisher: crate::facts::extensions::application_health(!linux).publisher,
            kind: crate::facts::extensions::application_health(!linux).kind,
            type_handler_version: crate::facts::extensions::application_health(!linux)
                .type_handler_version,
            enable_automatic_upgrade: true,
            settings,
            // probe only once the driver (which may reboot the VM) is in place
            provision_after: extensions.iter().map(|e| e.name.clone()).collect(),
            comment: Some(
                "Application health: automatic repairs replaces instances that stay unhealthy."
                    .into(),
            ),
            identity_auth: false,
        });
        Health {
            grace_period: p.grace_period.clone(),
        }
    });
    let spot = cap.uses_spot().then(|| Spot {
        eviction_policy: cap.eviction_policy.as_str(),
        max_price: cap.spot_max_price_per_hour,
        mix: flexible.then_some(PriorityMix {
            base_regular: cap.regular_base,
            regular_percent_above_base: cap.regular_percent_above_base,
        }),
    });
    let auto_upgrade_ext = extensions.iter().any(|e| e.enable_automatic_upgrade);
    let mut suppressions = Vec::new();
    if flexible {
        suppressions.push(Suppression {
            check: "CKV_AZURE_95",
            reason: "checkov fails every Flexible scale set here; automatic OS image upgrades would also swap the image under the GPU driver and CUDA stack. Roll out a new image by redeploying after testing the driver".into(),
        });
    } else if !auto_upgrade_ext {
        suppressions.push(Suppression {
            check: "CKV_AZURE_95",
            reason: "automatic OS image upgrades would reimage nodes of a running multi-node job; the image pins the driver, NCCL and InfiniBand stack. Upgrade by redeploying between jobs".into(),
        });
    }
    if !linux {
        suppressions.push(Suppression {
            check: "CKV_AZURE_178",
            reason: "Windows pool: there is no SSH; sign-in uses the adminPassword parameter (secure, no default) over the spec's inbound rules only".into(),
        });
    }
    let computer_name_prefix = if linux {
        name.to_string()
    } else {
        // Windows computer names have at most 15 characters; the scale set appends 6
        let mut p: String = name.chars().take(9).collect();
        while p.ends_with('-') {
            p.pop();
        }
        p
    };
    let disk =
        |lun: u32, size_gib: u32, kind: crate::spec::model::DiskType, caching: &'static str| Disk {
            lun,
            size_gib,
            storage_account_type: kind.as_str(),
            caching,
        };
    Compute {
        name: scale_set_name(name),
        vm_size: c.vm_size.clone(),
        capacity: cap.default_count(),
        zones: c.zones.clone(),
        flexible,
        infiniband: size.infiniband && !flexible,
        computer_name_prefix,
        linux,
        image: image.clone(),
        os_disk: disk(0, c.os_disk.size_gib, c.os_disk.kind, "ReadWrite"),
        data_disks: c
            .data_disks
            .iter()
            .enumerate()
            .map(|(i, d)| disk(i as u32, d.size_gib, d.kind, d.caching.as_str()))
            .collect(),
        disk_encryption_set: cmk.is_some(),
        encryption_at_host: s.security.encryption_at_host,
        trusted_launch: c.security_type == SecurityType::TrustedLaunch,
        security_type: match c.security_type {
            SecurityType::TrustedLaunch => "TrustedLaunch",
            SecurityType::Standard => "Standard",
        },
        accelerated_networking: c.accelerated_networking && size.accelerated_networking,
        nic_name: format!("nic-{name}"),
        spot,
        health,
        extensions,
        custom_data,
        suppressions,
    }
}
