//! `gpuform init`: a commented starter spec from a few answers (issue 10, item 18).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::ValueEnum;

use super::common::{ExitCode, Failure};
use crate::catalog::regions;
use crate::spec::model::WorkloadType;
use crate::spec::starter::{self, Answers, StarterQueue};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Workload {
    Inference,
    Training,
    Batch,
    Visualization,
}

impl From<Workload> for WorkloadType {
    fn from(w: Workload) -> Self {
        match w {
            Workload::Inference => WorkloadType::Inference,
            Workload::Training => WorkloadType::Training,
            Workload::Batch => WorkloadType::Batch,
            Workload::Visualization => WorkloadType::Visualization,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Queue {
    /// A storage account queue (autoscale.queue.storageQueue).
    StorageQueue,
    /// A Service Bus namespace and queue (autoscale.queue.serviceBus).
    ServiceBus,
}

#[derive(Debug, clap::Args)]
#[command(
    after_help = "On a terminal, init asks for what the flags do not give. Without one (a script, CI) \
it takes the flags and the defaults and asks nothing. The spec it writes validates clean; a Linux pool \
still needs your SSH public key (--ssh-public-key) before it renders."
)]
pub struct InitArgs {
    /// The spec file to write.
    #[arg(default_value = "gpuworkload.yaml", value_name = "FILE")]
    pub file: PathBuf,
    /// metadata.name (3-24 lowercase letters, digits, hyphens).
    #[arg(long, short = 'n')]
    pub name: Option<String>,
    /// What the GPUs do.
    #[arg(long, value_enum)]
    pub workload: Option<Workload>,
    /// The measured VRAM peak per VM, in GiB.
    #[arg(long, value_name = "GIB")]
    pub vram: Option<f64>,
    /// Azure region (e.g. eastus2).
    #[arg(long)]
    pub region: Option<String>,
    /// Inference: serve requests with this model server behind a private frontend (vllm, tgi,
    /// triton, tensorrtLlm, custom; none: a queue- or schedule-driven pool).
    #[arg(long, value_name = "SERVER", value_parser = starter::parse_serve)]
    pub serve: Option<starter::Serve>,
    /// With --serve: applicationGateway (counts requests), loadBalancer or both.
    #[arg(long, value_name = "KIND", value_parser = starter::parse_frontend)]
    pub frontend: Option<crate::spec::model::FrontendKind>,
    /// The OpenSSH public key for a Linux pool (the content of ~/.ssh/id_ed25519.pub).
    #[arg(long, value_name = "KEY")]
    pub ssh_public_key: Option<String>,
    /// Scale the pool on a queue's backlog (the deployment creates the queue); without it the
    /// autoscale block is written commented out.
    #[arg(long, value_enum, value_name = "KIND")]
    pub queue: Option<Queue>,
    /// Replace FILE if it exists.
    #[arg(long)]
    pub force: bool,
    /// Do not write gpuworkload.schema.json beside the spec (the modeline's target).
    #[arg(long)]
    pub no_schema: bool,
}

const SCHEMA_FILE: &str = "gpuworkload.schema.json";

/// Ask on the terminal until the answer parses (a bad one is asked again, earlier answers kept).
fn ask<T>(
    question: &str,
    default: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, Failure> {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    starter::ask_until(&mut input, &mut std::io::stderr(), question, default, parse)
        .map_err(|e| Failure::from_error(ExitCode::Usage, "cannot read the answer", &e))
}

pub fn run_init(args: InitArgs) -> Result<ExitCode, Failure> {
    let tty = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if args.file.exists() && !args.force {
        return Err(Failure::usage(format!("{} exists", args.file.display()))
            .help("choose another FILE, or --force to replace it"));
    }
    let default_name = args
        .file
        .file_stem()
        .and_then(|s| s.to_str())
        .and_then(|s| starter::parse_name(s).ok())
        .unwrap_or_else(|| "gpu-pool".into());
    let name = match args.name.clone() {
        Some(n) => n,
        None if tty => ask(
            "metadata.name (3-24 lowercase letters, digits, hyphens)",
            &default_name,
            starter::parse_name,
        )?,
        None => default_name,
    };
    if let Some(p) = starter::name_problem(&name) {
        return Err(Failure::usage(format!(
            "`{name}` cannot be metadata.name: {p}"
        )));
    }
    let workload: WorkloadType = match args.workload {
        Some(w) => w.into(),
        None if tty => ask(
            "workload type (inference, training, batch, visualization)",
            "inference",
            starter::parse_workload,
        )?,
        None => WorkloadType::Inference,
    };
    let server = match args.serve {
        Some(s) => s.0,
        None if tty && workload == WorkloadType::Inference => ask(
            "serve requests behind a private frontend? model server (vllm, tgi, triton, tensorrtLlm, custom; empty: a queue-driven pool)",
            "",
            starter::parse_server,
        )?,
        None => None,
    };
    let vram = match args.vram {
        Some(v) => v,
        None if tty => ask(
            "measured VRAM peak per VM, GiB (e.g. 20 or 20 GB)",
            "16",
            starter::parse_gib,
        )?,
        None => 16.0,
    };
    if !(vram.is_finite() && vram > 0.0 && vram <= 2048.0) {
        return Err(Failure::usage(format!(
            "--vram {vram}: give the VRAM peak in GiB (more than 0, at most 2048)"
        )));
    }
    let region = match args.region.clone() {
        Some(r) => starter::region_name(&r),
        None if tty => ask(
            "Azure region (e.g. eastus2 or West Europe)",
            "eastus2",
            starter::parse_region,
        )?,
        None => "eastus2".into(),
    };
    if !regions::is_known(&region) {
        crate::ci_eprintln!(
            "warning: `{region}` is not a region gpuform knows; check the spelling (`az account list-locations -o table`)"
        );
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let ssh_public_key = match args.ssh_public_key.clone() {
        Some(k) => Some(starter::ssh_key_from(&k, home.as_deref()).map_err(|e| {
            Failure::usage(e).help("--ssh-public-key takes the key or the path of its .pub file")
        })?),
        None if tty && workload != WorkloadType::Visualization => ask(
            "SSH public key, or the path of its file (e.g. ~/.ssh/id_ed25519.pub; empty: later)",
            "",
            |a| {
                if a.is_empty() {
                    Ok(None)
                } else {
                    starter::ssh_key_from(a, home.as_deref()).map(Some)
                }
            },
        )?,
        None => None,
    };
    let answers = Answers {
        name,
        workload,
        gpu_memory_gib: vram,
        region,
        ssh_public_key,
        schema_path: SCHEMA_FILE.into(),
        file: args.file.display().to_string(),
        queue: args.queue.map(|q| match q {
            Queue::StorageQueue => StarterQueue::StorageQueue,
            Queue::ServiceBus => StarterQueue::ServiceBus,
        }),
        serving: server.map(|x| (x, args.frontend.unwrap_or_default())),
    };
    let text = starter::starter(&answers);
    write_new(&args.file, &text, args.force)?;
    crate::ci_eprintln!("wrote {}", args.file.display());
    if !args.no_schema {
        let schema = args
            .file
            .parent()
            .map(|p| p.join(SCHEMA_FILE))
            .unwrap_or_else(|| PathBuf::from(SCHEMA_FILE));
        if !schema.exists() {
            write_new(&schema, crate::spec::schema::SCHEMA_TEXT, false)?;
            crate::ci_eprintln!(
                "wrote {} (the modeline's JSON Schema, for editors)",
                schema.display()
            );
        }
    }
    if answers.ssh_public_key.is_none() && workload != WorkloadType::Visualization {
        crate::ci_eprintln!(
            "next: add your SSH public key (compute.sshPublicKey) to {}, then `gpuform validate {}`",
            args.file.display(),
            args.file.display()
        );
    } else {
        crate::ci_eprintln!(
            "next: `gpuform validate {}`, then `gpuform render {} -o out/{}`",
            args.file.display(),
            args.file.display(),
            answers.name
        );
    }
    Ok(ExitCode::Ok)
}

/// Write `text` to `path` through a temporary file in the same directory (never half a file).
fn write_new(path: &std::path::Path, text: &str, replace: bool) -> Result<(), Failure> {
    let fail = |what: String, e: &(dyn std::error::Error + 'static)| {
        Failure::from_error(ExitCode::Usage, what, e)
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)
        .map_err(|e| fail(format!("cannot create {}", dir.display()), &e))?;
    let mut tmp = tempfile::NamedTempFile::new_in(&dir)
        .map_err(|e| fail(format!("cannot write in {}", dir.display()), &e))?;
    tmp.write_all(text.as_bytes())
        .map_err(|e| fail(format!("cannot write {}", path.display()), &e))?;
    let persisted = if replace {
        tmp.persist(path).map(drop)
    } else {
        tmp.persist_noclobber(path).map(drop)
    };
    persisted.map_err(|e| fail(format!("cannot write {}", path.display()), &e.error))
}
