//! `gpuform init`: a commented starter spec from a few answers. The text is built here (the CLI
//! only asks and writes); a test checks that what it writes validates clean.

use super::model::{FrontendKind, GpuVendorName, ModelServer, WorkloadType};

/// What `gpuform init` asks.
#[derive(Debug, Clone)]
pub struct Answers {
    pub name: String,
    pub workload: WorkloadType,
    pub gpu_memory_gib: f64,
    /// `workload.gpu.vendor` (NVIDIA unless the answer says otherwise).
    pub gpu_vendor: GpuVendorName,
    pub region: String,
    /// The OpenSSH public key (Linux pools); `None` writes a commented placeholder.
    pub ssh_public_key: Option<String>,
    /// The `$schema` path of the editor modeline, relative to the spec.
    pub schema_path: String,
    /// The spec file as the user named it (the header's next commands name it).
    pub file: String,
    /// The queue whose backlog scales the pool; `None` leaves the autoscale block commented out.
    pub queue: Option<StarterQueue>,
    /// Inference: a request-driven pool of this model server behind a private frontend
    /// (`None`: a queue- or schedule-driven pool).
    pub serving: Option<(ModelServer, FrontendKind)>,
}

/// The queue `gpuform init --queue` writes (the pool scales on its backlog).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StarterQueue {
    /// `autoscale.queue.storageQueue`, a queue in a storage account the deployment creates.
    StorageQueue,
    /// `autoscale.queue.serviceBus`, a Service Bus namespace and queue the deployment creates.
    ServiceBus,
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
    let gib = crate::report::number::short(a.gpu_memory_gib);
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
    let name_compact = a
        .name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(22)
        .collect::<String>();
    let queue_autoscale = match a.queue {
        None => format!(
            "  # autoscale:                    # scale on a queue's backlog and on schedules
  #   queue:
  #     storageQueue: {{account: st{name_compact}, queue: jobs, create: true}}
  #     targetPerInstance: 10
"
        ),
        Some(q) => {
            let queue = match q {
                StarterQueue::StorageQueue => {
                    format!(
                        "storageQueue: {{account: st{name_compact}, queue: jobs, create: true}}"
                    )
                }
                StarterQueue::ServiceBus => format!(
                    "serviceBus: {{namespace: sb-{}, queue: jobs, create: true}}",
                    a.name
                ),
            };
            format!(
                "  autoscale:                      # scale on the queue's backlog (and on schedules)
    queue:
      {queue}
      targetPerInstance: 10       # messages per instance; `gpuform simulate --tune` proposes a value
"
            )
        }
    };
    let (capacity, autoscale) = match a.serving.filter(|_| a.workload == WorkloadType::Inference) {
        Some((server, kind)) => ("    min: 1\n    max: 4".to_string(), serving_block(server, kind)),
        None => (
            "    min: 0\n    max: 4\n    default: 1                    # instances outside schedules; 0 with autoscale.queue scales from zero".to_string(),
            queue_autoscale,
        ),
    };
    format!(
        r#"# yaml-language-server: $schema={schema}
#
# A starter spec written by `gpuform init`. Next: `gpuform validate {file}`, then
# `gpuform render {file} -o out/{name}`. Every field: `gpuform schema`; the resolved
# spec with all defaults: `gpuform show {file}`.
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
    gpu:
      vendor: {vendor}{vendor_pad}# nvidia (CUDA, the default) | amd (ROCm) | any: the GPUs vmSize: auto may pick
      # tensorParallelSize: 2     # split one model across N GPUs (vLLM --tensor-parallel-size); without it, one GPU holds it
  compute:
    vmSize: auto                  # or a size from `gpuform sizes`; `gpuform validate --explain` shows the ranking
    image: {image}
    {sign_in}
  capacity:
{capacity}
{autoscale}  network:
    addressSpace: 10.40.0.0/16    # private space; subnets are derived from it
    # inbound: [{{name: ssh-from-vpn, port: 22, sources: [10.60.0.0/16]}}]   # nothing is open by default
  monitoring:
    alertEmails: [gpu-oncall@example.com]
    # budget: {{monthly: 5000}}     # a budget with alerts; `gpuform cost` compares the estimate with it
"#,
        schema = a.schema_path,
        file = shell_word(&a.file),
        name = a.name,
        region = a.region,
        vendor = a.gpu_vendor.as_str(),
        vendor_pad = " ".repeat(22usize.saturating_sub(a.gpu_vendor.as_str().len())),
    )
}

/// The starter's `serving` and `autoscale.requests` blocks (docs/src/serving.md).
fn serving_block(server: ModelServer, kind: FrontendKind) -> String {
    // servers without a documented default port and health path get placeholders to fill in
    let ports = match server {
        ModelServer::Vllm | ModelServer::Triton => String::new(),
        _ => "    port: 8080                    # REQUIRED: the port your server listens on\n    healthPath: /health           # REQUIRED: answers 200 once the model is loaded\n".to_string(),
    };
    let requests = if kind.has_gateway() {
        "  autoscale:\n    requests: {}                  # scale on requests per healthy instance (target derived from concurrency and serviceTime)\n"
    } else {
        "  # a load balancer cannot count requests: a fixed pool, or schedules (autoscale.schedules)\n"
    };
    format!(
        "  serving:                        # a request-driven pool behind a private frontend (never a public IP)\n    server: {}{}\n{ports}    frontend:\n      kind: {}{}\n    concurrency: 16               # requests one instance serves at once (vLLM --max-num-seqs)\n    serviceTime: 2s               # mean time of one request at that concurrency: measure it\n    modelLoadTime: 15m            # VM start to healthy: repairs wait this long\n{requests}",
        server.as_str(),
        match server {
            ModelServer::Vllm => "                  # port 8000, GET /health",
            ModelServer::Triton => "                # port 8000, GET /v2/health/ready",
            _ => "",
        },
        kind.as_str(),
        if kind.has_gateway() {
            "    # needs `az feature register --namespace Microsoft.Network --name EnableApplicationGatewayNetworkIsolation`"
        } else {
            ""
        }
    )
}

/// `--serve`'s value: a model server, or none.
#[derive(Debug, Clone, Copy)]
pub struct Serve(pub Option<ModelServer>);

/// `--serve SERVER` ([`parse_server`]).
pub fn parse_serve(a: &str) -> Result<Serve, String> {
    parse_server(a).map(Serve)
}

/// `--serve` / the serving question: a model server, or `none`/empty for no serving.
pub fn parse_server(a: &str) -> Result<Option<ModelServer>, String> {
    let w = a.trim().to_ascii_lowercase().replace(['-', '_', ' '], "");
    Ok(Some(match w.as_str() {
        "" | "none" | "no" | "n" | "queue" => return Ok(None),
        "vllm" => ModelServer::Vllm,
        "tgi" | "textgenerationinference" => ModelServer::Tgi,
        "triton" => ModelServer::Triton,
        "tensorrtllm" | "trtllm" => ModelServer::TensorrtLlm,
        "custom" => ModelServer::Custom,
        _ => {
            return Err(format!(
                "`{}` is not a model server: vllm, tgi, triton, tensorrtLlm, custom, or none",
                a.trim()
            ));
        }
    }))
}

/// `--frontend`: the private frontend's kind.
pub fn parse_frontend(a: &str) -> Result<FrontendKind, String> {
    match a
        .trim()
        .to_ascii_lowercase()
        .replace(['-', '_', ' '], "")
        .as_str()
    {
        "" | "applicationgateway" | "appgw" | "gateway" => Ok(FrontendKind::ApplicationGateway),
        "loadbalancer" | "lb" => Ok(FrontendKind::LoadBalancer),
        "both" => Ok(FrontendKind::Both),
        _ => Err(format!(
            "`{}` is not a frontend: applicationGateway, loadBalancer or both",
            a.trim()
        )),
    }
}

/// `path` as one shell word in the header's commands (quoted when it needs it).
fn shell_word(path: &str) -> String {
    let plain = !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./~+@%=:,".contains(c));
    if plain {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', "'\\''").replace('\n', " "))
    }
}

// ---- answers as people type them (init on a terminal re-asks until one parses) ------------

/// Ask `question` on `prompt` until `parse` accepts the answer; an empty answer is `default`.
/// A bad answer prints why and asks again (the earlier answers are kept by the caller). End of
/// input is an error (`UnexpectedEof`): nobody is there to answer.
pub fn ask_until<T>(
    input: &mut dyn std::io::BufRead,
    prompt: &mut dyn std::io::Write,
    question: &str,
    default: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> std::io::Result<T> {
    loop {
        if default.is_empty() {
            write!(prompt, "{question}: ")?;
        } else {
            write!(prompt, "{question} [{default}]: ")?;
        }
        prompt.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(prompt)?;
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!("no answer to `{question}`"),
            ));
        }
        let line = line.trim();
        let answer = if line.is_empty() { default } else { line };
        match parse(answer) {
            Ok(v) => return Ok(v),
            Err(why) => writeln!(prompt, "  {why}; try again (empty takes the default)")?,
        }
    }
}

/// `workload.gpu.vendor` as typed: `nvidia`, `NVIDIA`, `cuda`; `amd`, `rocm`; `any`, `either`.
pub fn parse_vendor(a: &str) -> Result<GpuVendorName, String> {
    match a.trim().to_ascii_lowercase().as_str() {
        "nvidia" | "cuda" | "n" => Ok(GpuVendorName::Nvidia),
        "amd" | "rocm" | "a" => Ok(GpuVendorName::Amd),
        "any" | "either" | "both" => Ok(GpuVendorName::Any),
        _ => Err(format!(
            "`{}` is not a GPU vendor: nvidia (CUDA), amd (ROCm) or any",
            a.trim()
        )),
    }
}

/// metadata.name as typed: `My Pool` is taken as `my-pool` when that is a valid name.
pub fn parse_name(a: &str) -> Result<String, String> {
    let a = a.trim();
    let folded: String = a
        .to_ascii_lowercase()
        .split(|c: char| c.is_whitespace() || c == '_' || c == '.')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    match name_problem(&folded) {
        None => Ok(folded),
        Some(p) => Err(format!("`{a}` cannot be metadata.name: {p}")),
    }
}

/// The workload type from what people call it: `inference`, `inferencing`, `LLM Chat`,
/// `serving`, `fine-tuning`, `train`, `batch jobs`, `viz`, `remote desktop`, or its number in
/// the question's list (1 inference, 2 training, 3 batch, 4 visualization).
pub fn parse_workload(a: &str) -> Result<WorkloadType, String> {
    let w = a.trim().to_ascii_lowercase();
    let has = |keys: &[&str]| keys.iter().any(|k| w.contains(k));
    let kind = match w.as_str() {
        "1" => Some(WorkloadType::Inference),
        "2" => Some(WorkloadType::Training),
        "3" => Some(WorkloadType::Batch),
        "4" => Some(WorkloadType::Visualization),
        _ if has(&["infer", "chat", "serv", "llm", "predict", "endpoint", "api"]) => {
            Some(WorkloadType::Inference)
        }
        _ if has(&["train", "tun", "pretrain"]) => Some(WorkloadType::Training),
        _ if has(&["batch", "job", "offline", "transcod", "encod", "render"]) => {
            Some(WorkloadType::Batch)
        }
        _ if has(&[
            "vis",
            "viz",
            "desktop",
            "vdi",
            "graphic",
            "workstation",
            "cad",
        ]) =>
        {
            Some(WorkloadType::Visualization)
        }
        _ => None,
    };
    kind.ok_or_else(|| {
        format!(
            "`{}` is not a workload type: inference, training, batch or visualization",
            a.trim()
        )
    })
}

/// A VRAM peak in GiB as typed: `20`, `20 GB`, `20GB`, `20 GiB`, `20g`, `20480 MiB`. GB is read
/// as GiB (GPU memory is sold in binary units: an "80 GB" A100 has 80 GiB).
pub fn parse_gib(a: &str) -> Result<f64, String> {
    let t = a.trim().to_ascii_lowercase().replace([' ', '_'], "");
    let t = t.strip_suffix("vram").unwrap_or(&t).to_string();
    let (num, scale) = [
        ("gib", 1.0),
        ("gb", 1.0),
        ("g", 1.0),
        ("mib", 1.0 / 1024.0),
        ("mb", 1.0 / 1024.0),
        ("m", 1.0 / 1024.0),
        ("tib", 1024.0),
        ("tb", 1024.0),
    ]
    .iter()
    .find_map(|(unit, scale)| t.strip_suffix(unit).map(|n| (n.to_string(), *scale)))
    .unwrap_or((t.clone(), 1.0));
    let v = num
        .replace(',', ".")
        .parse::<f64>()
        .map(|v| v * scale)
        .map_err(|_| format!("`{}` is not a number of GiB (e.g. 20 or 20 GB)", a.trim()))?;
    if v.is_finite() && v > 0.0 && v <= 2048.0 {
        Ok(v)
    } else {
        Err(format!(
            "`{}`: give the VRAM peak in GiB (more than 0, at most 2048)",
            a.trim()
        ))
    }
}

/// A region as typed: `West Europe`, `westeurope`, `West-Europe` are `westeurope`. A name
/// gpuform does not know is refused with the nearest known one.
pub fn parse_region(a: &str) -> Result<String, String> {
    let r = region_name(a);
    if crate::catalog::regions::is_known(&r) {
        return Ok(r);
    }
    let hint = super::schema::suggest(&r, crate::catalog::regions::REGIONS.iter().copied())
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    Err(format!(
        "`{}` is not an Azure region gpuform knows{hint}; `az account list-locations -o table` lists them",
        a.trim()
    ))
}

/// The ARM spelling of a region as typed (lowercase, no spaces or hyphens).
pub fn region_name(a: &str) -> String {
    crate::catalog::regions::arm_name(a)
}

/// The SSH public key from an answer: the key itself (`ssh-ed25519 AAAA… you@host`) or the path
/// of its file (`~/.ssh/id_ed25519.pub`), which is read. A private key file is refused (its
/// content is never shown); a path without `.pub` whose `.pub` twin exists points at it.
pub fn ssh_key_from(a: &str, home: Option<&std::path::Path>) -> Result<String, String> {
    let a = a.trim();
    let looks_like_key = a.split_whitespace().count() >= 2
        && (a.starts_with("ssh-") || a.starts_with("ecdsa-") || a.starts_with("sk-"));
    if looks_like_key || a.contains("PRIVATE KEY") {
        return match super::ssh_key::ssh_key_problem(a) {
            None => Ok(a.to_string()),
            Some(p) => Err(format!("the SSH public key is not usable: {p}")),
        };
    }
    let path = match (a.strip_prefix("~/"), home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => std::path::PathBuf::from(a),
    };
    let shown = path.display();
    let meta = std::fs::metadata(&path).map_err(|_| {
        format!("`{a}` is neither an SSH public key nor a file (give the key, or the path of its .pub file)")
    })?;
    if !meta.is_file() || meta.len() > 64 * 1024 {
        return Err(format!("{shown} is not an SSH public key file"));
    }
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    let text = String::from_utf8_lossy(&bytes);
    if text.contains("PRIVATE KEY") {
        let twin = format!("{}.pub", path.display());
        let hint = if std::path::Path::new(&twin).is_file() {
            format!("; the public key is {twin}")
        } else {
            "; give the .pub file beside it".to_string()
        };
        return Err(format!(
            "{shown} is a PRIVATE key: it never goes in a spec{hint}"
        ));
    }
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or_default();
    match super::ssh_key::ssh_key_problem(line) {
        None => Ok(line.to_string()),
        Some(_) => Err(format!(
            "{shown} does not hold an OpenSSH public key (`ssh-ed25519 AAAA… you@host`); `ssh-keygen -t ed25519` makes one"
        )),
    }
}

/// `gpuform init` writes the spec and its schema: `text` to `path`, through a temporary
/// file in the same directory (never half a file), 0644 like any config file.
pub fn write_new(
    path: &std::path::Path,
    text: &str,
    replace: bool,
) -> Result<(), crate::diag::failure::Failure> {
    use crate::diag::failure::{ExitCode, Failure};
    let fail = |what: String, e: &(dyn std::error::Error + 'static)| {
        Failure::from_error(ExitCode::Usage, what, e)
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| fail(format!("cannot create {}", dir.display()), &e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)
        .map_err(|e| fail(format!("cannot write in {}", dir.display()), &e))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes())
        .map_err(|e| fail(format!("cannot write {}", path.display()), &e))?;
    // a temporary file is 0600; a spec and its schema are config files, readable like any other
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o644))
            .map_err(|e| fail(format!("cannot write {}", path.display()), &e))?;
    }
    let persisted = if replace {
        tmp.persist(path).map(drop)
    } else {
        tmp.persist_noclobber(path).map(drop)
    };
    persisted.map_err(|e| fail(format!("cannot write {}", path.display()), &e.error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_people_type_them() {
        for a in [
            "20",
            "20 GB",
            "20GB",
            "20 GiB",
            "20g",
            "20480 MiB",
            " 20 gb ",
        ] {
            assert_eq!(parse_gib(a), Ok(20.0), "{a}");
        }
        for a in ["twenty", "0", "-3", "5000 GB", ""] {
            assert!(parse_gib(a).is_err(), "{a}");
        }
        for (a, w) in [
            ("inference", WorkloadType::Inference),
            ("inferencing", WorkloadType::Inference),
            ("LLM Chat", WorkloadType::Inference),
            ("Training", WorkloadType::Training),
            ("fine-tuning", WorkloadType::Training),
            ("batch jobs", WorkloadType::Batch),
            ("viz", WorkloadType::Visualization),
            ("4", WorkloadType::Visualization),
        ] {
            assert_eq!(parse_workload(a), Ok(w), "{a}");
        }
        assert!(parse_workload("banana").is_err());
        assert_eq!(parse_region("West Europe").as_deref(), Ok("westeurope"));
        assert_eq!(parse_region("eastus2").as_deref(), Ok("eastus2"));
        assert!(
            parse_region("westeuorpe")
                .unwrap_err()
                .contains("`westeurope`")
        );
        assert_eq!(parse_name("My Pool").as_deref(), Ok("my-pool"));
        assert!(parse_name("1x").is_err());
    }

    #[test]
    fn ssh_keys_from_text_or_files_never_a_private_key() {
        const KEY: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIT6t8MFGDBjrDDzp2JXe3CIMMd6hupoyimypHKIa8Ja ops@example.com";
        let dir = tempfile::tempdir().unwrap();
        let ssh = dir.path().join(".ssh");
        std::fs::create_dir(&ssh).unwrap();
        std::fs::write(ssh.join("id_ed25519.pub"), format!("{KEY}\n")).unwrap();
        let secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAASECRETBODY\n-----END OPENSSH PRIVATE KEY-----\n";
        std::fs::write(ssh.join("id_ed25519"), secret).unwrap();
        assert_eq!(ssh_key_from(KEY, None).as_deref(), Ok(KEY));
        assert_eq!(
            ssh_key_from("~/.ssh/id_ed25519.pub", Some(dir.path())).as_deref(),
            Ok(KEY)
        );
        let err = ssh_key_from("~/.ssh/id_ed25519", Some(dir.path())).unwrap_err();
        assert!(
            err.contains("PRIVATE key") && err.contains("id_ed25519.pub"),
            "{err}"
        );
        assert!(!err.contains("SECRETBODY"), "{err}");
        assert!(ssh_key_from("~/.ssh/nope.pub", Some(dir.path())).is_err());
        assert!(ssh_key_from(secret, None).is_err());
    }

    #[test]
    fn a_bad_answer_is_asked_again() {
        let mut input: &[u8] = b"twenty\n20 GB\n";
        let mut prompt = Vec::new();
        let v = ask_until(&mut input, &mut prompt, "VRAM", "16", parse_gib).unwrap();
        assert_eq!(v, 20.0);
        let shown = String::from_utf8(prompt).unwrap();
        assert_eq!(shown.matches("VRAM [16]: ").count(), 2, "{shown}");
        assert!(shown.contains("not a number of GiB"), "{shown}");
        let mut empty: &[u8] = b"";
        assert!(ask_until(&mut empty, &mut Vec::new(), "VRAM", "16", parse_gib).is_err());
    }
}
