//! Drivers, images, sign-in and cloud-init.

use super::context::Context;
use crate::catalog::drivers::{DriverKind, os_label, parse_cuda};
use crate::catalog::{DefaultDriver, GpuSize, GpuVendor};
use crate::diag::Diagnostic;
use crate::spec::model::{GpuVendorName, HyperVGeneration, OsType, SecurityType, vendor_label};
use crate::spec::resolve;
use crate::spec::ssh_key::ssh_key_problem;

/// Custom data is at most 65535 bytes before base64 (Azure's limit on `customData`:
/// [`crate::facts::limits::CUSTOM_DATA_SOURCE`]).
pub const MAX_CUSTOM_DATA_BYTES: u64 = crate::facts::limits::CUSTOM_DATA_MAX_BYTES;

/// Admin names Azure refuses for VMs and scale sets.
pub const RESERVED_ADMIN_NAMES: &[&str] = &[
    "administrator",
    "admin",
    "user",
    "user1",
    "test",
    "user2",
    "test1",
    "user3",
    "admin1",
    "1",
    "123",
    "a",
    "actuser",
    "adm",
    "admin2",
    "aspnet",
    "backup",
    "console",
    "david",
    "guest",
    "john",
    "owner",
    "root",
    "server",
    "sql",
    "support",
    "support_388945a0",
    "sys",
    "test2",
    "test3",
    "user4",
    "user5",
];

pub fn check(ctx: &Context<'_>, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let c = &s.compute;
    let img = ctx.image();
    if let Some(size) = ctx.size() {
        check_size(ctx, size, out);
    }
    if s.workload.cuda.is_some()
        && s.workload.gpu.as_ref().and_then(|g| g.vendor) == Some(GpuVendorName::Amd)
    {
        out.push(
            Diagnostic::new(
                "cuda-needs-nvidia",
                "`workload.gpu.vendor: amd` with `workload.cuda`: CUDA runs only on NVIDIA GPUs",
            )
            .at("/spec/workload/gpu/vendor")
            .label("AMD GPUs run ROCm, not CUDA")
            .help(
                "remove `workload.cuda` for a ROCm framework, or set `workload.gpu.vendor: nvidia`",
            )
            .locked(),
        );
    }
    if s.workload.distributed && c.zones.len() > 1 {
        out.push(
            Diagnostic::new("zones-uniform-infiniband", "an InfiniBand pool spread over several zones")
                .at("/spec/compute/zones")
                .help("pin one zone (or none): InfiniBand connects VMs of one placement group in one zone"),
        );
    }
    match img.os {
        OsType::Linux => match &c.ssh_public_key {
            None => out.push(
                Diagnostic::new("ssh-key-required", "a Linux pool needs an SSH public key (password sign-in is disabled)")
                    .at("/spec/compute")
                    .help("add `sshPublicKey: \"ssh-ed25519 AAAA... you@example.com\"` (the public half, never the private key)"),
            ),
            Some(key) => {
                if let Some(problem) = ssh_key_problem(key) {
                    out.push(
                        Diagnostic::new("ssh-key-invalid", problem)
                            .at("/spec/compute/sshPublicKey")
                            .help("paste the content of ~/.ssh/id_ed25519.pub: `ssh-ed25519 AAAA... comment`"),
                    );
                }
            }
        },
        OsType::Windows => {
            if c.ssh_public_key.is_some() {
                out.push(
                    Diagnostic::new("windows-ssh-key", "sshPublicKey is ignored on a Windows pool")
                        .at("/spec/compute/sshPublicKey")
                        .help("remove it; the admin password is a secure parameter at deploy time"),
                );
            }
        }
    }
    if RESERVED_ADMIN_NAMES.contains(&c.admin_username.to_ascii_lowercase().as_str()) {
        out.push(
            Diagnostic::new(
                "admin-username-reserved",
                format!("Azure refuses `{}` as an admin user name", c.admin_username),
            )
            .at("/spec/compute/adminUsername")
            .help("use another name, e.g. `azureuser`"),
        );
    }
    if let Some(path) = &c.cloud_init {
        use crate::io::{ConfinedError, ReadError};
        // the confined, bounded read render makes (src/io.rs): a spec from a pull request must
        // not embed (and `render --check` print) files that are not the repository's
        let at = "/spec/compute/cloudInit";
        match crate::io::read_confined(ctx.base_dir, path, MAX_CUSTOM_DATA_BYTES) {
            Err(ConfinedError::Outside { root, .. }) => out.push(
                Diagnostic::new("cloud-init", format!("cloudInit `{path}` leads outside the spec's repository"))
                    .at(at)
                    .label("outside the repository")
                    .help(format!("keep the cloud-init file inside {} (the git repository holding the spec, or the spec's directory) and give its path relative to the spec", root.display())),
            ),
            Err(ConfinedError::Read(ReadError::TooLarge { len, .. })) => out.push(
                Diagnostic::new("cloud-init", format!("the cloud-init file has {}; Azure custom data holds at most {MAX_CUSTOM_DATA_BYTES} bytes", len.map_or_else(|| "more".to_string(), |l| format!("{l} bytes"))))
                    .at(at)
                    .help("download large scripts at boot instead (`#include` or a runcmd with curl)"),
            ),
            Err(ConfinedError::Read(ReadError::NotRegular { kind, .. })) => out.push(
                Diagnostic::new("cloud-init", format!("cloudInit `{path}` is {kind}, not a regular file"))
                    .at(at)
                    .help("name a cloud-init YAML file inside the repository"),
            ),
            Err(ConfinedError::Read(e)) => out.push(
                Diagnostic::new("cloud-init", format!("cannot read cloud-init file: {e}"))
                    .at(at)
                    .help("the path is relative to the spec file"),
            ),
            Ok(bytes) => {
                match String::from_utf8(bytes) {
                    Err(_) => out.push(
                        Diagnostic::new("cloud-init", "the cloud-init file is not UTF-8 text")
                            .at(at)
                            .help("save it as UTF-8"),
                    ),
                    Ok(text) if text.contains(super::MIME_BOUNDARY) => out.push(
                        Diagnostic::new(
                            "cloud-init",
                            format!("the cloud-init file contains gpuform's MIME boundary `{}`", super::MIME_BOUNDARY),
                        )
                        .at(at)
                        .help("render combines the file with the GPU collector's part as multipart MIME and cannot if the file holds that boundary: remove or change the line"),
                    ),
                    Ok(text) => custom_data_received(ctx, text.as_bytes(), at, out),
                }
            }
        }
    }
}

/// The size-dependent half: image generation, the driver, CUDA against it, InfiniBand zones.
/// Run for the spec's size, and by `vmSize: auto` for every candidate (see
/// [`super::size_checks`]).
pub fn check_size(ctx: &Context<'_>, size: &GpuSize, out: &mut Vec<Diagnostic>) {
    let s = &ctx.spec.spec;
    let c = &s.compute;
    let img = ctx.image();
    let explicit = s.workload.gpu.as_ref().and_then(|g| g.vendor);
    if let Some(v) = explicit.and_then(|v| v.catalog())
        && v != size.gpu_vendor
    {
        out.push(
            Diagnostic::new(
                "gpu-vendor-mismatch",
                format!(
                    "{} has {} GPUs; `workload.gpu.vendor` asks for {}",
                    size.name,
                    vendor_label(size.gpu_vendor),
                    vendor_label(v)
                ),
            )
            .at("/spec/compute/vmSize")
            .label(format!("{} GPU", vendor_label(size.gpu_vendor)))
            .help(format!(
                "use `vmSize: auto` (it picks among {} sizes), or pin a {} size",
                vendor_label(v),
                vendor_label(v)
            ))
            .locked(),
        );
    } else if s.workload.cuda.is_some()
        && explicit.and_then(|v| v.catalog()).is_none()
        && size.gpu_vendor == GpuVendor::Amd
    {
        out.push(
            Diagnostic::new(
                "cuda-needs-nvidia",
                format!(
                    "`workload.cuda` needs an NVIDIA GPU; {} has AMD GPUs ({}), which run ROCm, not CUDA",
                    size.name, size.gpu_model
                ),
            )
            .at("/spec/workload/cuda")
            .label("CUDA runs only on NVIDIA GPUs")
            .help("use `vmSize: auto` (with `cuda` it picks an NVIDIA size) or pin an NVIDIA size; for a ROCm framework remove `workload.cuda` (and set `workload.gpu.vendor: amd`)")
            .locked(),
        );
        return;
    }
    if img.generation == HyperVGeneration::V1
        && !size.hyper_v_generations.contains(&HyperVGeneration::V1)
    {
        out.push(
            Diagnostic::new(
                "image-generation",
                format!("{} runs only Gen2 images; the image is Gen1", size.name),
            )
            .at("/spec/compute/image")
            .help("use a Gen2 image (the aliases are Gen2)"),
        );
    }
    if img.generation == HyperVGeneration::V2 && !size.supports_gen2() {
        out.push(
            Diagnostic::new(
                "image-generation",
                format!("{} runs only Gen1 images; the image is Gen2", size.name),
            )
            .at("/spec/compute/image")
            .help("use a current size; Gen1-only GPU sizes are retired"),
        );
    }
    // an image whose drivers serve the other vendor's GPUs: the pool would boot with no usable
    // GPU (the driver plan trusts an image that carries drivers)
    if let crate::spec::model::Image::Alias(a) = &c.image
        && let Some(vendor) = resolve::alias_driver_vendor(*a)
        && vendor != size.gpu_vendor
    {
        let (has, want) = match vendor {
            crate::catalog::GpuVendor::Amd => ("AMD ROCm", "ubuntu-hpc-22.04"),
            _ => ("NVIDIA", "ubuntu-hpc-22.04-rocm"),
        };
        out.push(
            Diagnostic::new(
                "image-gpu-vendor",
                format!(
                    "`{}` carries {has} drivers; {} has {} GPUs",
                    a.as_str(),
                    size.name,
                    match size.gpu_vendor {
                        crate::catalog::GpuVendor::Amd => "AMD",
                        _ => "NVIDIA",
                    }
                ),
            )
            .at("/spec/compute/image")
            .label("drivers for the other vendor")
            .help(format!(
                "use `image: auto` (it picks the image for the size), or `image: {want}`"
            ))
            .locked(),
        );
        return;
    }
    match resolve::driver(s, size) {
        Err(problem) => {
            let rule = if size.driver.default == DefaultDriver::Image && !img.has_gpu_drivers {
                "nd-needs-hpc-image"
            } else {
                "driver-mismatch"
            };
            let at = if rule == "nd-needs-hpc-image"
                || c.gpu_driver == crate::spec::model::GpuDriver::Auto
            {
                "/spec/compute/image"
            } else {
                "/spec/compute/gpuDriver"
            };
            // render cannot plan a pool without a driver: a policy cannot switch this off
            out.push(
                Diagnostic::new(rule, problem.message)
                    .at(at)
                    .help(problem.help)
                    .locked(),
            );
        }
        Ok(plan) => {
            if plan.extension.is_some() && c.security_type == SecurityType::TrustedLaunch {
                out.push(
                    Diagnostic::new("trusted-launch-driver", "Trusted Launch's Secure Boot rejects the unsigned kernel modules the GPU driver extension builds")
                        .at("/spec/compute/securityType")
                        .label("Secure Boot on")
                        .help("use `securityType: standard`, or an image with signed drivers and `gpuDriver: none`"),
                );
            }
            if let (Some(want), Some(max)) = (
                s.workload.cuda.as_deref().and_then(parse_cuda),
                plan.max_cuda,
            ) && want > max
            {
                let via = match plan.kind {
                    DriverKind::Grid => format!(
                        "the GRID driver {}",
                        plan.driver_version.as_deref().unwrap_or("default")
                    ),
                    _ => format!(
                        "the CUDA {} driver",
                        plan.driver_version.as_deref().unwrap_or("default")
                    ),
                };
                let hint = match plan.kind {
                        DriverKind::Grid => "pin a newer GRID driver with `compute.driverVersion` (570.211.01 supports CUDA 12.8), or build for an older CUDA".to_string(),
                        _ => format!("lower `workload.cuda` to {}.{} or use `image: ubuntu-hpc-22.04`, which carries a newer driver", max.0, max.1),
                    };
                let mut d = Diagnostic::new(
                    "cuda-too-new",
                    format!(
                        "CUDA {} needs a newer driver than {} installs on {} (CUDA {}.{} at most)",
                        s.workload.cuda.as_deref().unwrap_or_default(),
                        via,
                        os_label(img.driver_os),
                        max.0,
                        max.1
                    ),
                )
                .at("/spec/workload/cuda")
                .label(format!("needs CUDA {}.{}+ driver support", want.0, want.1))
                .help(hint);
                if let Some(reason) = plan.pin_reason {
                    d = d.note(format!(
                        "gpuform pins {} because {reason}",
                        plan.driver_version.as_deref().unwrap_or_default()
                    ));
                }
                out.push(d);
            }
        }
    }
}

/// The custom data Azure will receive, as `render` assembles it (`plan::Plan::build`): with the
/// GPU collector's part on a Linux pool, and on the Logs Ingestion path after the template puts
/// the deployment's values in for gpuform's placeholders. Refused here when it cannot be
/// assembled or is larger than Azure takes, so `validate` says no where `deploy` would fail.
fn custom_data_received(ctx: &Context<'_>, user: &[u8], at: &str, out: &mut Vec<Diagnostic>) {
    use crate::plan::gpu_monitoring as gm;
    if ctx.ranking() {
        return;
    }
    let Some(size) = ctx.size() else { return };
    let spec = ctx.spec;
    let s = &spec.spec;
    // `monitoring.gpu.enabled` as the plan will see it (resolved after the rules). Left out, it
    // resolves to on or off: on, the plan's serving part reads it as on too (it stops only at
    // an explicit `false`)
    let enabled = crate::spec::defaults::gpu_monitoring_enabled(s, Some(size));
    let Some(g) = gm::for_custom_data(&spec.metadata.name, s, size, enabled) else {
        return;
    };
    if g.kind != "Linux" || crate::plan::devbox::applies(s) {
        return;
    }
    // a serving pool's GPU scale metric adds its settings to the collector (plan::serving_gpu)
    let scaling = crate::plan::serving_gpu::plan(&spec.metadata.name, s);
    let env = scaling
        .as_ref()
        .map(crate::plan::serving_gpu::environment)
        .unwrap_or_default();
    let inputs = gm::CollectorInputs::new(g.expected_gpus, g.vendor, g.ingestion.as_ref(), &env);
    match received_as_azure(inputs, user) {
        Err(e) => out.push(
            Diagnostic::new("cloud-init", e.0)
                .at(at)
                .help("remove or change it in the cloud-init file (GPU monitoring combines the file with its own part), or turn the collector off with `monitoring.gpu.enabled: false`"),
        ),
        Ok(received) if received as u64 > gm::MAX_CUSTOM_DATA_BYTES => out.push(
            Diagnostic::new(
                "cloud-init",
                format!(
                    "the cloud-init file and the GPU collector come to {received} bytes as Azure receives them{}; Azure takes at most {} bytes of custom data",
                    if g.ingestion.is_some() { " (the Logs Ingestion values in place of gpuform's placeholders, at their longest)" } else { "" },
                    gm::MAX_CUSTOM_DATA_BYTES
                ),
            )
            .at(at)
            .help("make the file smaller (download large scripts at boot with `#include` or a runcmd), or turn the collector off with `monitoring.gpu.enabled: false`"),
        ),
        Ok(_) => {}
    }
}

/// The size Azure receives of the custom data made of the collector's `inputs` and the spec's
/// cloud-init file `user` (the placeholders of the Logs Ingestion path and of a serving pool's
/// GPU metric at their longest), or why they cannot be combined. Kept per process for each
/// (inputs, file), up to [`RECEIVED_MEMO_BYTES`] of files and inputs: a platform's specs share a
/// few cloud-init files and collector settings, and assembling the tens of KB anew for every
/// spec was ~2 % of `validate`'s CPU on 1,000 specs (issue 41). `render` assembles them itself.
fn received_as_azure(
    inputs: crate::plan::gpu_monitoring::CollectorInputs,
    user: &[u8],
) -> Result<usize, crate::plan::gpu_monitoring::MergeError> {
    use crate::plan::gpu_monitoring::{CollectorInputs, MergeError};
    type Received = Result<usize, MergeError>;
    static KEPT: crate::io::Kept<(CollectorInputs, Vec<u8>), Received> =
        crate::io::Kept::new(RECEIVED_MEMO_BYTES);
    let key = (inputs, user.to_vec());
    if let Some(known) = KEPT.get(&key) {
        return known;
    }
    let received = key
        .0
        .received(Some(user))
        .map(|(bytes, n)| n + crate::plan::serving_gpu::received_growth(&bytes));
    let held = user.len() + key.0.text_len();
    KEPT.keep(key, received.clone(), held);
    received
}

/// The most [`received_as_azure`] keeps of cloud-init files and collector inputs.
const RECEIVED_MEMO_BYTES: usize = 16 * 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::gpu_monitoring as gm;

    /// What the kept sizes say is what assembling the custom data says (the rule's former
    /// reckoning, `custom_data_for_env` and the serving part's growth), for every example spec
    /// with the collector and several cloud-init files, each asked twice and in turn with other
    /// specs' inputs: an input left out of the key would answer one spec with another's size.
    #[test]
    fn kept_sizes_are_the_assembled_sizes() {
        let users: [&[u8]; 5] = [
            b"#cloud-config\nruncmd: [true]\n",
            b"#!/bin/sh\necho hi\n",
            b"#cloud-config\n# a comment that makes it longer than the first one\n",
            b"not cloud-init",
            b"#cloud-config\n# ==GPUFORM-GPU-MONITORING==\n",
        ];
        let mut asked = 0;
        for round in 0..2 {
            for entry in std::fs::read_dir("examples").unwrap() {
                let path = entry.unwrap().path();
                if path.extension().is_none_or(|e| e != "yaml") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let Ok(parsed) = crate::spec::yaml::parse(&text) else {
                    continue;
                };
                let Ok(mut spec) = serde_json::from_value::<crate::spec::Spec>(parsed.value) else {
                    continue;
                };
                crate::spec::defaults::apply(&mut spec);
                let Some(size) = spec.size() else { continue };
                let spec = &spec;
                let s = &spec.spec;
                let on = crate::spec::defaults::gpu_monitoring_enabled(s, Some(size));
                let Some(g) = gm::for_custom_data(&spec.metadata.name, s, size, on) else {
                    continue;
                };
                let env = crate::plan::serving_gpu::plan(&spec.metadata.name, s)
                    .as_ref()
                    .map(crate::plan::serving_gpu::environment)
                    .unwrap_or_default();
                for user in users {
                    let expected = gm::custom_data_for_env(&g, Some(user), &env)
                        .map(|(b, r)| r + crate::plan::serving_gpu::received_growth(&b));
                    let inputs = gm::CollectorInputs::new(
                        g.expected_gpus,
                        g.vendor,
                        g.ingestion.as_ref(),
                        &env,
                    );
                    assert_eq!(
                        received_as_azure(inputs, user),
                        expected,
                        "{} (round {round})",
                        path.display()
                    );
                    asked += 1;
                }
            }
        }
        assert!(asked >= 20, "{asked}");
    }
}
