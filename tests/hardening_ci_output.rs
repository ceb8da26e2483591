//! Spec values cannot speak to the CI runner (issue 39, item 4): whatever a spec (or its path)
//! holds, a queue pool's or a serving pool's, no line gpuform prints, on stdout or stderr, in any
//! output format of the commands that read a spec (validate, show, render, cost, preflight
//! offline, render --check, simulate, gpu-report; deploy, status, destroy and quota request up to
//! where they need a credential), is one the GitHub Actions
//! runner (`::` after blanks, `##[` anywhere) or the Azure Pipelines agent (`##vso[`, `##[`
//! anywhere) takes for a command; lines split at LF and at a lone CR, as the runners split them.
//! Only gpuform's own annotations (`--output github`) start with `::`, and their data cannot.
//! JSON outputs still parse, to the same values.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use gpuform::report::ci::is_runner_command;
use proptest::prelude::*;
use serde_json::{Value, json};

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const BREAKS: [&str; 4] = ["\n", "\r", "\r\n", "\n    "];
const COMMANDS: [&str; 6] = [
    "::error file=.github/workflows/ci.yml,line=1::pwned",
    "::add-mask::secret",
    "  ::stop-commands::tok",
    "##vso[task.setvariable variable=PWNED]1",
    "##VSO[task.complete result=Failed]x",
    "##[error]pwned",
];

/// The spec the hostile value goes into: a queue-driven pool or a serving pool (its own rules).
#[derive(Debug, Clone, Copy)]
enum Base {
    Queue,
    Serving,
}

const BASES: [Base; 2] = [Base::Queue, Base::Serving];

impl Base {
    /// (the example, its cloud-init file)
    fn files(self) -> (&'static str, &'static str) {
        match self {
            Base::Queue => ("shortvideo-transcode.yaml", "transcode.yaml"),
            Base::Serving => ("llm-chat-vllm.yaml", "vllm-server.yaml"),
        }
    }
}

/// Where the hostile value goes.
#[derive(Debug, Clone, Copy)]
enum Place {
    Description,
    Tag,
    AlternateSize,
    ZonesKey,
    ScheduleName,
    QueueName,
    UnknownKey,
    Path,
    /// `monitoring.budget.currency` (the cost's currency; refused, and the refusal echoes it)
    Currency,
    /// `serving.server` (refused by the schema's enum, echoed)
    ServingServer,
    /// `serving.healthPath` (refused by its pattern, echoed)
    HealthPath,
}

const PLACES: [Place; 11] = [
    Place::Description,
    Place::Tag,
    Place::AlternateSize,
    Place::ZonesKey,
    Place::ScheduleName,
    Place::QueueName,
    Place::UnknownKey,
    Place::Path,
    Place::Currency,
    Place::ServingServer,
    Place::HealthPath,
];

fn base(base: Base) -> Value {
    let text = std::fs::read_to_string(format!("examples/{}", base.files().0)).unwrap();
    gpuform::spec::yaml::parse(&text).unwrap().value
}

/// The spec with `payload` at `place`, written under a fresh directory; its path.
fn write(dir: &Path, b: Base, place: Place, payload: &str) -> PathBuf {
    let mut v = base(b);
    match place {
        Place::Description => v["metadata"]["description"] = payload.into(),
        Place::Tag => v["metadata"]["tags"]["team"] = payload.into(),
        Place::AlternateSize => v["spec"]["compute"]["alternateSizes"] = json!([payload]),
        Place::ZonesKey => {
            v["spec"]["compute"]["zonesByRegion"] = json!({ payload: ["1"] });
        }
        Place::ScheduleName => v["spec"]["autoscale"]["schedules"][0]["name"] = payload.into(),
        Place::QueueName => v["spec"]["autoscale"]["queue"]["serviceBus"]["queue"] = payload.into(),
        Place::UnknownKey => v["spec"][payload] = 1.into(),
        Place::Path => {}
        Place::Currency => v["spec"]["monitoring"]["budget"]["currency"] = payload.into(),
        Place::ServingServer => v["spec"]["serving"]["server"] = payload.into(),
        Place::HealthPath => v["spec"]["serving"]["healthPath"] = format!("/{payload}").into(),
    }
    let sub = match place {
        Place::Path => dir.join(format!("specs{payload}")),
        _ => dir.join("specs"),
    };
    std::fs::create_dir_all(sub.join("cloud-init")).unwrap();
    let cloud_init = b.files().1;
    std::fs::copy(
        format!("examples/cloud-init/{cloud_init}"),
        sub.join("cloud-init").join(cloud_init),
    )
    .unwrap();
    let spec = sub.join("pool.yaml");
    std::fs::write(&spec, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    spec
}

fn fixture(name: &str) -> String {
    format!("tests/fixtures/preflight/{name}")
}

/// Every command and format that echoes spec content, on `spec`: (what, args, format).
fn runs(spec: &Path, out_dir: &Path) -> Vec<(String, Vec<String>, &'static str)> {
    let s = spec.display().to_string();
    let o = out_dir.display().to_string();
    let mut v = Vec::new();
    for f in ["text", "json", "markdown", "sarif", "github"] {
        v.push((
            format!("validate {f}"),
            vec!["validate".into(), s.clone(), "--output".into(), f.into()],
            f,
        ));
    }
    for f in ["text", "json"] {
        v.push((
            format!("show {f}"),
            vec!["show".into(), s.clone(), "--output".into(), f.into()],
            f,
        ));
        v.push((
            format!("render {f}"),
            vec![
                "render".into(),
                s.clone(),
                "--out-dir".into(),
                o.clone(),
                "--output".into(),
                f.into(),
            ],
            f,
        ));
    }
    // --check against an empty directory: out of date, and it says which specs to render
    let stale = out_dir.with_file_name("stale");
    std::fs::create_dir_all(&stale).unwrap();
    for f in ["text", "json"] {
        v.push((
            format!("render --check {f}"),
            vec![
                "render".into(),
                s.clone(),
                "--check".into(),
                stale.display().to_string(),
                "--output".into(),
                f.into(),
            ],
            f,
        ));
    }
    for f in ["text", "json", "markdown"] {
        v.push((
            format!("cost {f}"),
            vec!["cost".into(), s.clone(), "--output".into(), f.into()],
            f,
        ));
    }
    for f in ["text", "json", "markdown", "github"] {
        v.push((
            format!("preflight {f}"),
            vec![
                "preflight".into(),
                s.clone(),
                "--usages".into(),
                fixture("az-vm-list-usage-eastus2.json"),
                "--skus".into(),
                fixture("az-vm-list-skus-eastus2.json"),
                "--output".into(),
                f.into(),
            ],
            f,
        ));
    }
    for f in ["text", "json", "markdown"] {
        v.push((
            format!("simulate {f}"),
            vec![
                "simulate".into(),
                s.clone(),
                "--synthetic".into(),
                "--job-duration".into(),
                "PT2M".into(),
                "--provisioning".into(),
                "PT8M".into(),
                "--output".into(),
                f.into(),
            ],
            f,
        ));
    }
    for f in ["text", "json"] {
        v.push((
            format!("gpu-report {f}"),
            vec![
                "gpu-report".into(),
                s.clone(),
                "--telemetry".into(),
                "tests/fixtures/gpu/export-az.json".into(),
                "--output".into(),
                f.into(),
            ],
            f,
        ));
    }
    // the commands that need Azure, up to the credential they cannot get here (no secret in
    // the environment): what they print of the spec before that
    let azure = |cmd: &[&str], f: &'static str| {
        let mut a: Vec<String> = cmd.iter().map(|c| c.to_string()).collect();
        a.extend([s.clone(), "--auth".into(), "secret".into()]);
        a.extend(["--output".into(), f.into()]);
        (format!("{} {f}", cmd.join(" ")), a, f)
    };
    for f in ["text", "json", "markdown"] {
        v.push(azure(&["deploy", "-g", "rg", "--yes"], f));
        v.push(azure(&["deploy", "-g", "rg", "--what-if"], f));
        v.push(azure(&["status", "-g", "rg"], f));
    }
    for f in ["text", "json"] {
        v.push(azure(&["destroy", "-g", "rg", "--yes"], f));
        v.push(azure(&["quota", "request", "--what-if"], f));
    }
    v
}

/// The binary in an environment with no Azure credential and no CI variables (so the commands
/// that need Azure stop at the credential, offline).
fn gpuform(home: &Path) -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env(
            "AZURE_SUBSCRIPTION_ID",
            "00000000-0000-0000-0000-000000000000",
        );
    c
}

/// gpuform's own annotation line: `::error file=…` (and warning, notice), whose rest cannot
/// be a command either.
fn own_command(line: &str) -> bool {
    ["::error file=", "::warning file=", "::notice file="]
        .iter()
        .any(|p| line.starts_with(p) && !is_runner_command(&line[2..]))
}

fn check(b: Base, place: Place, payload: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let spec = write(dir.path(), b, place, payload);
    for (what, args, format) in runs(&spec, &dir.path().join("out")) {
        let out = gpuform(dir.path()).args(&args).output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if out.status.code().is_none_or(|c| c > 2) || stderr.contains("Usage: gpuform") {
            return Err(format!("{what}: {:?}\n{stderr}", out.status));
        }
        for (stream, text) in [("stdout", &stdout), ("stderr", &stderr)] {
            for line in text.split(['\n', '\r']) {
                let ok = !is_runner_command(line)
                    || (format == "github" && stream == "stdout" && own_command(line));
                if !ok {
                    return Err(format!(
                        "{b:?} {place:?} {payload:?}: {what} {stream} printed a runner command:\n{line}\n--- all of it:\n{text}"
                    ));
                }
            }
        }
        if matches!(format, "json" | "sarif") && !stdout.trim().is_empty() {
            let v: Value = serde_json::from_str(&stdout)
                .map_err(|e| format!("{what}: not JSON ({e}):\n{stdout}"))?;
            // the value is still there, byte for byte, where the spec put it
            if matches!(place, Place::Description) && what.starts_with("show") {
                let d = v.pointer("/metadata/description").and_then(Value::as_str);
                if d != Some(payload) {
                    return Err(format!("{what}: the description reads back as {d:?}"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn the_issues_spec_cannot_write_workflow_commands() {
    check(
        Base::Queue,
        Place::AlternateSize,
        "Standard_X\n::error file=.github/workflows/ci.yml,line=1::pwned",
    )
    .unwrap();
    check(
        Base::Queue,
        Place::ZonesKey,
        "eastus\n::warning file=x::w\n##vso[task.setvariable variable=a]b",
    )
    .unwrap();
}

/// The outputs added since round three began (serving's rules, the currency, validate's
/// Markdown, simulate, gpu-report, the Azure commands' early messages), each with a value that
/// reaches them.
#[test]
fn the_newer_outputs_cannot_write_workflow_commands() {
    let cmd = "::error file=.github/workflows/ci.yml,line=1::pwned";
    for (b, place, payload) in [
        (
            Base::Serving,
            Place::AlternateSize,
            format!("Standard_X\n{cmd}"),
        ),
        (
            Base::Serving,
            Place::Description,
            format!("x\n##vso[task.complete]{cmd}"),
        ),
        (Base::Serving, Place::ServingServer, format!("vllm\n{cmd}")),
        (Base::Serving, Place::HealthPath, format!("health\r{cmd}")),
        (Base::Queue, Place::Currency, format!("EUR\n{cmd}")),
        (Base::Serving, Place::Path, format!("\n{cmd}")),
    ] {
        check(b, place, &payload).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(4), ..ProptestConfig::default() })]

    #[test]
    fn no_spec_value_or_path_becomes_a_runner_command(
        b in prop::sample::select(BASES.to_vec()),
        place in prop::sample::select(PLACES.to_vec()),
        lead in "[a-z]{0,3}",
        brk in prop::sample::select(BREAKS.to_vec()),
        cmd in prop::sample::select(COMMANDS.to_vec()),
        tail in "[a-z ]{0,3}",
    ) {
        let payload = format!("{lead}{brk}{cmd}{tail}");
        let r = check(b, place, &payload);
        prop_assert!(r.is_ok(), "{}", r.unwrap_err());
    }
}
