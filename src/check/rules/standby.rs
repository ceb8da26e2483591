//! `autoscale.standby` (issue 23): what Azure does not support for a standby pool is refused
//! with the page that says so, and a spec that lists several GPU sizes for one scale set (an
//! instance mix) is refused with instance mix's own limits. Facts: [`crate::facts::standby`].

use serde_json::Value;

use crate::catalog::GpuSize;
use crate::diag::Diagnostic;
use crate::facts::standby as facts;
use crate::spec::model::{Orchestration, OsType, SecurityType, WorkloadSpec};
use crate::spec::standby::{self, StandbyState};

const AT: &str = "/spec/autoscale/standby";

fn source(s: crate::facts::Source) -> String {
    format!("source: {} (read {})", s.what, s.read)
}

/// The size-dependent half (hibernation). Run for the spec's size, and by `vmSize: auto` for
/// every candidate, so `auto` picks a size that can hibernate when the spec asks for it.
/// (The rules take the spec, not `super::Context`, so this file stays out of the import circle
/// of `rules/mod.rs`.)
pub fn check_size(s: &WorkloadSpec, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    let Some(sb) = standby::of(s) else {
        return;
    };
    if sb.state != StandbyState::Hibernated {
        return;
    }
    if !facts::hibernation_supported(&size.series, size.memory_gib) {
        out.push(
            Diagnostic::new(
                "standby-hibernation-unsupported",
                format!(
                    "{} ({} series, {} GiB RAM) cannot hibernate: Azure hibernates only {} GPU sizes with up to {} GB RAM",
                    size.name,
                    size.series,
                    crate::sizing::fmt_num(size.memory_gib),
                    facts::HIBERNATION_GPU_SERIES.join(", "),
                    facts::HIBERNATION_MAX_MEMORY_GB
                ),
            )
            .at(format!("{AT}/state"))
            .label("not a hibernation size")
            .help("use `state: deallocated` (the default), or a size of those series")
            .note(source(facts::HIBERNATION)),
        );
    }
    // the VM's memory goes to its OS disk when it hibernates
    let disk = s.compute.os_disk.size_gib;
    let ram = size.memory_gib.ceil() as u32;
    if facts::HIBERNATION_OS_DISK_HOLDS_RAM && disk < ram {
        out.push(
            Diagnostic::new(
                "standby-hibernation-os-disk",
                format!(
                    "a {disk} GiB OS disk cannot hold the {} GiB of RAM of {} when it hibernates",
                    crate::sizing::fmt_num(size.memory_gib),
                    size.name
                ),
            )
            .at("/spec/compute/osDisk/sizeGiB")
            .label(format!("at least {ram} GiB, plus the OS and applications"))
            .help(format!(
                "set `compute.osDisk.sizeGiB` to at least {ram} plus what the image and the workload take (hibernation writes the memory to the OS disk), or use `state: deallocated`"
            ))
            .note("\"A persistent OS disk large enough to store the contents of the RAM, OS and other applications running on the VM\" is a prerequisite of hibernation")
            .note(source(facts::HIBERNATION)),
        );
    }
}

/// `size`: the spec's resolved size; `os`: its image's operating system.
pub fn check(s: &WorkloadSpec, size: Option<&GpuSize>, os: OsType, out: &mut Vec<Diagnostic>) {
    let Some(sb) = standby::of(s) else {
        return;
    };
    if let Some(size) = size {
        check_size(s, size, out);
    }
    if s.compute.orchestration == Orchestration::Uniform {
        out.push(
            Diagnostic::new(
                "standby-needs-flexible",
                "a standby pool needs a scale set with Flexible orchestration",
            )
            .at_key(AT)
            .label("Uniform orchestration is not supported")
            .help("use `compute.orchestration: flexible`, or remove `autoscale.standby`")
            .note(source(facts::FLEXIBLE_ONLY))
            .locked(),
        );
    }
    match sb.state {
        StandbyState::Running if !facts::RUNNING_WITH_AUTOSCALE_SUPPORTED => out.push(
            Diagnostic::new(
                "standby-running-autoscale",
                "a running standby pool on an autoscaled scale set is not supported by Azure",
            )
            .at(format!("{AT}/state"))
            .label("\"Standby Pools in a running VM state with autoscale enabled is not yet supported\"")
            .help("use `state: deallocated` (the default): the pooled VMs have their driver installed and only need to start")
            .note(source(facts::OVERVIEW)),
        ),
        StandbyState::Hibernated => {
            if s.capacity.uses_spot() && !facts::HIBERNATION_WITH_SPOT {
                out.push(
                    Diagnostic::new(
                        "standby-hibernation-unsupported",
                        "Spot VMs cannot hibernate",
                    )
                    .at(format!("{AT}/state"))
                    .help("use `state: deallocated`")
                    .note(source(facts::HIBERNATION)),
                );
            }
            if os == OsType::Linux
                && s.compute.security_type == SecurityType::TrustedLaunch
            {
                out.push(
                    Diagnostic::new(
                        "standby-hibernation-unsupported",
                        "Linux VMs with Trusted Launch cannot hibernate",
                    )
                    .at(format!("{AT}/state"))
                    .help("use `state: deallocated`, or `compute.securityType: standard`")
                    .note(source(facts::HIBERNATION_LINUX)),
                );
            }
        }
        _ => {}
    }
    let c = &s.capacity;
    if c.uses_spot() {
        let mix = c.regular_base > 0 || c.regular_percent_above_base > 0;
        let d = Diagnostic::new(
            "standby-spot",
            if mix {
                "a standby pool cannot serve a Spot/regular mix".to_string()
            } else {
                "standby pools with Spot VMs are a preview Azure does not support in general".to_string()
            },
        )
        .at_key(AT)
        .label(if mix {
            "\"not a mix of Spot and regular instances\""
        } else {
            "Spot in standby pools is in preview"
        })
        .help("use `capacity.regularPercentAboveBase: 100` (regular VMs only), or remove `autoscale.standby`")
        .note(source(facts::SPOT));
        out.push(if mix { d.locked() } else { d });
    }
    let min_ready = sb.min_ready();
    if min_ready > sb.max_ready {
        out.push(
            Diagnostic::new(
                "standby-ready-order",
                format!(
                    "standby.minReady ({min_ready}) is larger than standby.maxReady ({})",
                    sb.max_ready
                ),
            )
            .at(format!("{AT}/minReady"))
            .help(format!(
                "lower minReady to at most {} (or leave it out: it defaults to maxReady)",
                sb.max_ready
            ))
            .note(source(facts::MIN_NOT_ABOVE_MAX))
            // Azure refuses the pool: no policy can let it through to render
            .locked(),
        );
    }
    // the largest instance count the scale set can reach: capacity.max or a schedule's max
    let top = s
        .autoscale
        .iter()
        .flat_map(|a| a.schedules.iter().map(|p| p.max))
        .chain([c.max])
        .max()
        .unwrap_or(c.max);
    let total = top.saturating_add(facts::pool_size(sb.max_ready, min_ready, top));
    if total > facts::MAX_VMS_WITH_POOL {
        out.push(
            Diagnostic::new(
                "standby-vm-limit",
                format!(
                    "at {top} instances the scale set and its standby pool hold {total} VMs; Azure allows {} between them",
                    facts::MAX_VMS_WITH_POOL
                ),
            )
            .at(format!("{AT}/maxReady"))
            .help(format!(
                "lower standby.maxReady/minReady or capacity.max so that max + pool stays within {}",
                facts::MAX_VMS_WITH_POOL
            ))
            .note(source(facts::FAQ)),
        );
    } else if sb.max_ready > top {
        out.push(
            Diagnostic::new(
                "standby-above-max",
                format!(
                    "standby.maxReady ({}) is above the most instances the scale set can run ({top}): the extra pooled VMs are never taken, yet count against vCPU quota and bill their disks",
                    sb.max_ready
                ),
            )
            .at(format!("{AT}/maxReady"))
            .help(format!("lower standby.maxReady to at most {top}"))
            .note(source(facts::OVERVIEW)),
        );
    }
    let grants = standby::scope_grants(s);
    if !grants.is_empty() {
        let who = standby::principal_arg(sb.provider_principal_id.as_deref());
        let listed: Vec<String> = grants
            .iter()
            .map(|g| format!("{} on {} ({})", g.role_name, g.what, g.scope))
            .collect();
        let mut d = Diagnostic::new(
            "standby-provider-scopes",
            format!(
                "the standby pool's provider (\"{}\") also needs {}: the template's grants on the pool's resource group do not reach another group or subscription, and without them the pool never fills",
                facts::PROVIDER_PRINCIPAL_NAME,
                listed.join("; ")
            ),
        )
        .at_key(AT)
        .help(format!(
            "grant them before deploying (a subnet in the pool's own group needs nothing more):\n{}",
            grants
                .iter()
                .map(|g| g.az_line(&who))
                .collect::<Vec<_>>()
                .join("\n")
        ))
        .note(source(facts::PERMISSIONS));
        if sb.provider_principal_id.is_none() {
            d = d.note("$(az ad sp list ...) looks the provider's principal up by the name the permissions page gives; `gpuform preflight -g RG` checks the grants");
        }
        out.push(d);
    }
    if sb.provider_principal_id.is_none() {
        let cmk =
            s.security.disk_encryption == crate::spec::model::DiskEncryption::CustomerManagedKey;
        let roles: Vec<String> = facts::PROVIDER_ROLES
            .iter()
            .map(|r| format!("{} ({})", r.name, r.id))
            .chain(cmk.then(|| {
                let r = facts::DISK_ENCRYPTION_SET_ROLE;
                format!("{} ({}) on the disk encryption set", r.name, r.id)
            }))
            .collect();
        out.push(
            Diagnostic::new(
                "standby-provider-roles",
                format!(
                    "the standby pool works only after the \"{}\" principal of your tenant holds {} on the resource group, and `{}` is registered (up to {} minutes)",
                    facts::PROVIDER_PRINCIPAL_NAME,
                    roles.join(", "),
                    facts::PROVIDER,
                    facts::REGISTRATION_MINUTES,
                ),
            )
            .at_key(AT)
            .help(format!(
                "grant them before deploying (`az provider register -n {}`; `az ad sp list --display-name \"{}\" --query [0].id`), or set `autoscale.standby.providerPrincipalId` to that id and the template grants them",
                facts::PROVIDER,
                facts::PROVIDER_PRINCIPAL_NAME
            ))
            .note(source(facts::PERMISSIONS)),
        );
    }
}

/// Before the schema: a `compute.vmSize` that lists several sizes, or a `compute.skuProfile`, asks
/// for an instance mix, which Azure does not offer for GPU sizes. The schema's generic error at
/// that place (`invalid-type` / `unknown-field`) is replaced by this one, which gives the reason
/// and the source. Returns the schema diagnostics to keep.
pub fn instance_mix(doc: &Value, schema: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let compute = doc.pointer("/spec/compute");
    let sizes: Option<Vec<String>> = compute
        .and_then(|c| c.get("vmSize"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    Value::Object(o) => o
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("?")
                        .to_string(),
                    other => other.to_string(),
                })
                .collect()
        });
    let sku_profile = compute.and_then(|c| c.get("skuProfile")).is_some();
    let (pointer, on_key, listed) = match (&sizes, sku_profile) {
        (Some(v), _) if v.len() >= 2 => ("/spec/compute/vmSize", false, v.clone()),
        (_, true) => {
            let listed = compute
                .and_then(|c| c.pointer("/skuProfile/vmSizes"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().or_else(|| v.get("name")?.as_str()))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            ("/spec/compute/skuProfile", true, listed)
        }
        _ => return schema,
    };
    let gpu: Vec<&String> = listed
        .iter()
        .filter(|n| !facts::instance_mix_family(n))
        .collect();
    let what = if listed.is_empty() {
        "an instance mix (`skuProfile`)".to_string()
    } else {
        format!("an instance mix of {}", listed.join(", "))
    };
    let mut d = Diagnostic::new(
        "instance-mix-gpu",
        format!("one scale set cannot run several GPU sizes: {what}"),
    )
    .label(format!(
        "instance mix supports only the {} families{}",
        facts::INSTANCE_MIX_FAMILIES
            .iter()
            .map(char::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        if gpu.is_empty() {
            String::new()
        } else {
            format!(
                "; not {}",
                gpu.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    ))
    .help("give one size (`vmSize: Standard_…`, or `auto`); `gpuform preflight` ranks alternate regions when it runs out")
    .note("instance mix doesn't support standby pools either")
    .note(source(facts::INSTANCE_MIX))
    .locked();
    d = if on_key {
        d.at_key(pointer)
    } else {
        d.at(pointer)
    };
    let mut out: Vec<Diagnostic> = schema
        .into_iter()
        .filter(|e| {
            let p = e.pointer.as_deref().unwrap_or_default();
            !(p == pointer || p.starts_with(&format!("{pointer}/")))
        })
        .collect();
    out.push(d);
    out
}
