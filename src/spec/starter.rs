//! `gpuform init`: a commented starter spec from a few answers. The text is built here (the CLI
//! only asks and writes); a test checks that what it writes validates clean.

use super::model::WorkloadType;

/// What `gpuform init` asks.
#[derive(Debug, Clone)]
pub struct Answers {
    pub name: String,
    pub workload: WorkloadType,
    pub gpu_memory_gib: f64,
    pub region: String,
    /// The OpenSSH public key (Linux pools); `None` writes a commented placeholder.
    pub ssh_public_key: Option<String>,
    /// The `$schema` path of the editor modeline, relative to the spec.
    pub schema_path: String,
}

/// Why `name` cannot be `metadata.name` (3-24 lowercase letters, digits and hyphens, starting
/// with a letter, as the schema's pattern says).
pub fn name_problem(name: &str) -> Option<&'static str> {
    if !(3..=24).contains(&name.len()) {
        return Some("it must be 3-24 characters long");
    }
    if !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Some("it must start with a lowercase letter");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Some("use lowercase letters, digits and hyphens only");
    }
    if name.ends_with('-') {
        return Some("it must not end with a hyphen");
    }
    None
}

fn yaml_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The starter spec: the schema modeline, the answers, safe defaults, and a comment on every
/// field a team usually changes next.
pub fn starter(a: &Answers) -> String {
    let kind = a.workload.as_str();
    let gib = crate::sizing::fmt_num(a.gpu_memory_gib);
    let precision = match a.workload {
        WorkloadType::Visualization => String::new(),
        _ => "\n    precision: fp16                 # fp32 | tf32 | bf16 | fp16 | fp8 | int8 | int4: the precision gpuMemoryGiB was measured at".to_string(),
    };
    let (image, sign_in) = match a.workload {
        WorkloadType::Visualization => (
            "windows-2022                 # visualization: a Windows pool with the GRID driver",
            "adminUsername: gpuadmin      # the password comes from GPUFORM_ADMIN_PASSWORD at deploy time".to_string(),
        ),
        _ => (
            "auto                         # or ubuntu-22.04, ubuntu-24.04, ubuntu-hpc-22.04, ubuntu-hpc-22.04-rocm, windows-2022",
            match &a.ssh_public_key {
                Some(k) => format!("sshPublicKey: {}", yaml_quote(k.trim())),
                None => "# sshPublicKey: \"ssh-ed25519 AAAA... you@example.com\"   # REQUIRED for Linux: paste ~/.ssh/id_ed25519.pub".to_string(),
            },
        ),
    };
    format!(
        r#"# yaml-language-server: $schema={schema}
#
# A starter spec written by `gpuform init`. Next: `gpuform validate {{this file}}`, then
# `gpuform render {{this file}} -o out/{name}`. Every field: `gpuform schema`; the resolved
# spec with all defaults: `gpuform show {{this file}}`.
apiVersion: gpuform/v1
kind: GpuWorkload
metadata:
  name: {name}                  # 3-24 chars; prefixes every resource name
  tags:                           # required tags (a policy file can change the list)
    project: {name}
    team: my-team
    env: prod
    costCenter: cc-0000
spec:
  region: {region}
  # alternateRegions: [westus3]   # preflight checks and ranks them when the size or quota runs out
  workload:
    type: {kind}                  # training | inference | batch | visualization
    gpuMemoryGiB: {gib}              # the measured VRAM peak per VM; vmSize: auto picks the cheapest size that fits{precision}
    # cuda: "12.4"                # the CUDA version the framework needs: checked against the driver
  compute:
    vmSize: auto                  # or a size from `gpuform sizes`; `gpuform validate --explain` shows the ranking
    image: {image}
    {sign_in}
  capacity:
    min: 0
    max: 4
    default: 1                    # instances outside schedules; 0 with autoscale.queue scales from zero
  # autoscale:                    # scale on a queue's backlog and on schedules
  #   queue:
  #     storageQueue: {{account: st{name_compact}, queue: jobs, create: true}}
  #     targetPerInstance: 10
  network:
    addressSpace: 10.40.0.0/16    # private space; subnets are derived from it
    # inbound: [{{name: ssh-from-vpn, port: 22, sources: [10.60.0.0/16]}}]   # nothing is open by default
  monitoring:
    alertEmails: [gpu-oncall@example.com]
    # budget: {{monthly: 5000}}     # a budget with alerts; `gpuform cost` compares the estimate with it
"#,
        schema = a.schema_path,
        name = a.name,
        region = a.region,
        name_compact = a
            .name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .take(22)
            .collect::<String>(),
    )
}
