//! One CLI grammar (issue 24, item 4): every command that prints a report takes `--output` with
//! one set of value names (text | json | markdown | sarif | github); the old spellings (`--format`,
//! `human`, `table`, `yaml`) keep working but are hidden; `render -o/--out-dir DIR` names its
//! directory and `render --output json` prints what it wrote. Each offline command's
//! `--output json` is a JSON document.

mod common;

use std::path::PathBuf;

use common::{clean_command, examples, texts};

const NAMES: [&str; 5] = ["text", "json", "markdown", "sarif", "github"];

fn fixture(dir: &str, name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir)
        .join(name)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = clean_command()
        .env("GPUFORM_TODAY", "2026-12-01")
        .args(args)
        .output()
        .unwrap();
    let (o, e) = texts(&out);
    (out.status.code().unwrap_or(-1), o, e)
}

fn json(args: &[&str]) -> serde_json::Value {
    let (code, o, e) = run(args);
    assert!(code == 0 || code == 1, "{args:?}: exit {code}\n{o}\n{e}");
    serde_json::from_str(&o).unwrap_or_else(|err| panic!("{args:?}: not JSON ({err}):\n{o}\n{e}"))
}

fn all_commands(c: &clap::Command, path: String, out: &mut Vec<(String, clap::Command)>) {
    for s in c.get_subcommands() {
        let p = format!("{path} {}", s.get_name()).trim().to_string();
        out.push((p.clone(), s.clone()));
        all_commands(s, p, out);
    }
}

#[test]
fn every_format_flag_is_output_with_the_shared_value_names() {
    let mut cmds = Vec::new();
    all_commands(&gpuform::cli::command(), String::new(), &mut cmds);
    let mut with_output = Vec::new();
    for (name, c) in &cmds {
        for a in c.get_arguments() {
            let long = a.get_long().unwrap_or_default();
            assert_ne!(
                long, "format",
                "{name}: --format is a hidden alias of --output now"
            );
            if long != "output" {
                continue;
            }
            with_output.push(name.clone());
            if name == "render" {
                continue; // free text: a format, or (before --out-dir) a directory
            }
            let values: Vec<String> = a
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            assert_eq!(values.first().map(String::as_str), Some("text"), "{name}");
            for v in &values {
                assert!(NAMES.contains(&v.as_str()), "{name}: --output {v}");
            }
            assert_eq!(
                a.get_default_values(),
                ["text"],
                "{name}: the default is called text"
            );
            // the old name of the flag still parses, hidden
            assert!(
                a.get_all_aliases().unwrap_or_default().contains(&"format"),
                "{name}: --format must keep working"
            );
        }
    }
    for must in [
        "validate",
        "show",
        "render",
        "preflight",
        "cost",
        "simulate",
        "deploy",
        "gpu-report",
        "status",
        "destroy",
        "quota request",
        "sizes",
        "rules",
    ] {
        assert!(
            with_output.iter().any(|n| n == must),
            "{must} has no --output"
        );
    }
}

#[test]
fn old_spellings_still_work() {
    let spec = examples("shortvideo-transcode.yaml");
    let spec = spec.to_str().unwrap();
    for (args, want) in [
        (vec!["validate", spec, "--format", "human"], "ok"),
        (vec!["sizes", "--format", "table"], "Standard_"),
        (vec!["rules", "--format", "table"], "address-space-public"),
        (vec!["show", spec, "--format", "yaml"], "kind: GpuWorkload"),
        (vec!["cost", spec, "--output", "table"], "$"),
    ] {
        let (code, o, e) = run(&args);
        assert_eq!(code, 0, "{args:?}\n{o}\n{e}");
        assert!(o.contains(want), "{args:?}: {o}");
    }
    // help shows the new names only
    let (_, help, _) = run(&["validate", "--help"]);
    assert!(help.contains("--output <FORMAT>"), "{help}");
    assert!(
        !help.contains("human") && !help.contains("--format"),
        "{help}"
    );
}

#[test]
fn each_offline_command_prints_json_with_output_json() {
    let spec = examples("shortvideo-transcode.yaml");
    let spec = spec.to_str().unwrap();
    let v = json(&["validate", spec, "--output", "json"]);
    assert!(v.to_string().contains("shortvideo-transcode.yaml"), "{v}");
    let v = json(&["show", spec, "--output", "json"]);
    assert_eq!(v["kind"], "GpuWorkload");
    let v = json(&["cost", spec, "--output", "json"]);
    assert_eq!(v["schemaVersion"], 1);
    let v = json(&["sizes", "--output", "json"]);
    assert!(
        v.as_array().is_some_and(|a| !a.is_empty()) || v.is_object(),
        "{v}"
    );
    let v = json(&["rules", "--output", "json"]);
    assert!(v.to_string().contains("address-space-public"), "{v}");
    let v = json(&[
        "preflight",
        spec,
        "--usages",
        &fixture("preflight", "az-vm-list-usage-eastus2.json"),
        "--skus",
        &fixture("preflight", "az-vm-list-skus-eastus2-all.json"),
        "--output",
        "json",
    ]);
    assert!(v.to_string().contains("eastus2"), "{v}");
    let v = json(&[
        "simulate",
        spec,
        "--synthetic",
        "--days",
        "1",
        "--job-duration",
        "PT2M",
        "--output",
        "json",
    ]);
    assert!(v.pointer("/waitMinutes/p95").is_some(), "{v}");
    let a100 = examples("llm-finetune-a100.yaml");
    let v = json(&[
        "gpu-report",
        a100.to_str().unwrap(),
        "--telemetry",
        &fixture("gpu", "export-az.json"),
        "--output",
        "json",
    ]);
    assert!(v.is_object(), "{v}");
}

#[test]
fn render_out_dir_and_output_json() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = examples("shortvideo-transcode.yaml");
    let spec = spec.to_str().unwrap();
    let dir = tmp.path().join("out");
    let d = dir.to_str().unwrap();
    let v = json(&["render", spec, "--out-dir", d, "--output", "json"]);
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(v["outDir"], d);
    assert_eq!(v["rendered"][0]["dir"], d);
    assert!(
        v["rendered"][0]["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "main.bicep"),
        "{v}"
    );
    assert!(dir.join("main.bicep").is_file());
    // -o is the short name; --check with --output json says whether DIR is up to date
    let (code, o, e) = run(&["render", spec, "-o", d]);
    assert_eq!(code, 0, "{o}{e}");
    let v = json(&["render", spec, "--check", d, "--output", "json"]);
    assert_eq!(v["upToDate"], true, "{v}");
    // `--output DIR` (the spelling before --out-dir) still writes DIR
    let old = tmp.path().join("legacy");
    let (code, o, e) = run(&["render", spec, "--output", old.to_str().unwrap()]);
    assert_eq!(code, 0, "{o}{e}");
    assert!(old.join("azuredeploy.json").is_file());
    assert!(o.contains("rendered "), "{o}");
    // two directories, or none: usage errors that say what to do
    let (code, _, e) = run(&["render", spec, "--output", old.to_str().unwrap(), "-o", d]);
    assert_eq!(code, 2);
    assert!(e.contains("-o/--out-dir"), "{e}");
    let (code, _, e) = run(&["render", spec]);
    assert_eq!(code, 2);
    assert!(e.contains("-o DIR"), "{e}");
}

// ---- issue 37, item 9: one grammar across every command ---------------------------------------

/// Every (command, argument) of the CLI, subcommands included.
fn every_arg() -> Vec<(String, clap::Arg)> {
    let mut cmds = Vec::new();
    all_commands(&gpuform::cli::command(), String::new(), &mut cmds);
    cmds.iter()
        .flat_map(|(name, c)| c.get_arguments().map(move |a| (name.clone(), a.clone())))
        .collect()
}

/// One concept, one name: the old spellings are hidden aliases of these.
const RENAMED: [(&str, &str); 5] = [
    ("format", "output"),
    ("dry-run", "what-if"),
    ("submit", "yes"),
    ("export", "telemetry"),
    ("out", "out-dir"),
];

#[test]
fn a_flag_means_the_same_thing_under_the_same_name_everywhere() {
    let args = every_arg();
    let mut failures = Vec::new();
    // (1) an old spelling is never a visible name or a visible alias
    for (cmd, a) in &args {
        let long = a.get_long().unwrap_or_default();
        if let Some(v) = a.get_visible_aliases().filter(|v| !v.is_empty()) {
            failures.push(format!(
                "{cmd} --{long}: visible aliases {v:?} (old spellings are hidden aliases)"
            ));
        }
        for (old, new) in RENAMED {
            if long == old {
                failures.push(format!("{cmd} --{old}: the name is --{new}"));
            }
        }
    }
    // (2) a long name used by several commands has one short name and one value name, and is
    // hidden or shown alike
    let mut by_long: std::collections::BTreeMap<&str, Vec<(&String, &clap::Arg)>> =
        Default::default();
    for (cmd, a) in &args {
        if let Some(l) = a.get_long() {
            by_long.entry(l).or_default().push((cmd, a));
        }
    }
    for (long, uses) in &by_long {
        let shape = |a: &clap::Arg| {
            let takes = a.get_action().takes_values();
            (
                a.get_short(),
                takes
                    .then(|| a.get_value_names().map(|v| v.to_vec()))
                    .flatten(),
                takes,
            )
        };
        let first = shape(uses[0].1);
        for (cmd, a) in &uses[1..] {
            if shape(a) != first {
                failures.push(format!(
                    "--{long}: {} has {:?}, {cmd} has {:?}",
                    uses[0].0,
                    first,
                    shape(a)
                ));
            }
        }
    }
    // (3) every duration is DURATION (one grammar: 20s, 5m, 1h, 2d, ISO 8601); no flag counts
    // in SECS, HOURS or MINUTES any more (hidden test knobs excepted)
    for (cmd, a) in &args {
        let names = a.get_value_names().unwrap_or_default();
        for n in names {
            if ["SECS", "HOURS", "MINUTES", "SECONDS"].contains(&n.as_str()) && !a.is_hide_set() {
                failures.push(format!(
                    "{cmd} --{}: value {n}; durations are DURATION",
                    a.get_long().unwrap_or_default()
                ));
            }
        }
    }
    // (4) the commands that change Azure take --what-if and -y/--yes; the telemetry file is
    // --telemetry wherever it is read; -g is --resource-group everywhere
    let has = |cmd: &str, long: &str| {
        args.iter()
            .any(|(c, a)| c == cmd && a.get_long() == Some(long))
    };
    for cmd in ["deploy", "destroy", "quota request"] {
        for long in ["what-if", "yes"] {
            if !has(cmd, long) {
                failures.push(format!("{cmd} has no --{long}"));
            }
        }
    }
    for cmd in ["gpu-report", "simulate"] {
        if !has(cmd, "telemetry") {
            failures.push(format!("{cmd} has no --telemetry"));
        }
    }
    for (cmd, a) in &args {
        if a.get_short() == Some('g') && a.get_long() != Some("resource-group") {
            failures.push(format!(
                "{cmd}: -g is --{}",
                a.get_long().unwrap_or_default()
            ));
        }
        if a.get_short() == Some('y') && a.get_long() != Some("yes") {
            failures.push(format!(
                "{cmd}: -y is --{}",
                a.get_long().unwrap_or_default()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_old_spellings_of_renamed_flags_still_parse() {
    let spec = examples("shortvideo-transcode.yaml");
    let spec = spec.to_str().unwrap();
    let cli = gpuform::cli::command();
    for argv in [
        vec!["gpuform", "quota", "request", spec, "--submit"],
        vec!["gpuform", "quota", "request", spec, "--dry-run"],
        vec!["gpuform", "deploy", spec, "-g", "rg", "--dry-run"],
        vec!["gpuform", "destroy", spec, "-g", "rg", "--dry-run"],
        vec!["gpuform", "gpu-report", spec, "--export", "x.json"],
        vec!["gpuform", "preflight", spec, "--request-quota", "--dry-run"],
        vec!["gpuform", "status", spec, "-g", "rg", "--output", "human"],
        vec!["gpuform", "deploy", spec, "-g", "rg", "--format", "table"],
        vec![
            "gpuform",
            "cost",
            spec,
            "--timeout",
            "30",
            "--prices-max-age",
            "24",
        ],
        vec!["gpuform", "quota", "request", spec, "--wait", "900"],
        vec!["gpuform", "status", spec, "-g", "rg", "--watch", "30"],
    ] {
        if let Err(e) = cli.clone().try_get_matches_from(&argv) {
            panic!("{argv:?}: {e}");
        }
    }
}

#[test]
fn every_duration_flag_takes_every_form() {
    let spec = examples("shortvideo-transcode.yaml");
    let spec = spec.to_str().unwrap();
    let cli = gpuform::cli::command();
    for v in ["20s", "5m", "1h", "2d", "PT1M", "pt90s", "P1DT2H"] {
        for argv in [
            vec!["gpuform", "preflight", spec, "--timeout", v],
            vec![
                "gpuform",
                "cost",
                spec,
                "--timeout",
                v,
                "--prices-max-age",
                v,
            ],
            vec!["gpuform", "quota", "request", spec, "--wait", v],
            vec!["gpuform", "status", spec, "-g", "rg", "--watch", v],
            vec!["gpuform", "deploy", spec, "-g", "rg", "--timeout", v],
        ] {
            if let Err(e) = cli.clone().try_get_matches_from(&argv) {
                panic!("{argv:?}: {e}");
            }
        }
    }
    let e = cli
        .clone()
        .try_get_matches_from(["gpuform", "preflight", spec, "--timeout", "soon"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("20s, 5m"), "{e}");
    // simulate's durations (validated by the command): the short forms and ISO 8601 alike
    for (job, wait) in [("2m", "10m"), ("PT2M", "PT10M"), ("120s", "600s")] {
        let v = json(&[
            "simulate",
            spec,
            "--synthetic",
            "--days",
            "1",
            "--job-duration",
            job,
            "--provisioning",
            "8m",
            "--wait-p95",
            wait,
            "--output",
            "json",
        ]);
        assert!(v.pointer("/waitMinutes/p95").is_some(), "{v}");
    }
}

#[test]
fn spec_durations_take_the_short_forms_and_render_iso_8601() {
    // `jobDuration: 20s` failed with a raw regex; the cooldowns and window took ISO only
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(examples("shortvideo-transcode.yaml")).unwrap();
    let short = text
        .replace(
            "scaleOutCooldown: PT5M",
            "scaleOutCooldown: 5m\n    timeWindow: 10m",
        )
        .replace("scaleInCooldown: PT15M", "scaleInCooldown: 15m")
        .replacen("  workload:\n", "  workload:\n    jobDuration: 20s\n", 1);
    assert_ne!(short, text);
    let iso = short
        .replace("scaleOutCooldown: 5m", "scaleOutCooldown: PT5M")
        .replace("timeWindow: 10m", "timeWindow: PT10M")
        .replace("scaleInCooldown: 15m", "scaleInCooldown: PT15M")
        .replace("jobDuration: 20s", "jobDuration: PT20S");
    let (a, b) = (tmp.path().join("short.yaml"), tmp.path().join("iso.yaml"));
    std::fs::create_dir_all(tmp.path().join("cloud-init")).unwrap();
    std::fs::copy(
        examples("cloud-init/transcode.yaml"),
        tmp.path().join("cloud-init/transcode.yaml"),
    )
    .unwrap();
    std::fs::write(&a, &short).unwrap();
    std::fs::write(&b, &iso).unwrap();
    let (code, o, e) = run(&["validate", a.to_str().unwrap()]);
    assert_eq!(code, 0, "{o}{e}");
    // the same template, byte for byte, as with ISO 8601: Azure gets PT5M, never 5m
    for (spec, dir) in [(&a, "ra"), (&b, "rb")] {
        let d = tmp.path().join(dir);
        let (code, o, e) = run(&["render", spec.to_str().unwrap(), "-o", d.to_str().unwrap()]);
        assert_eq!(code, 0, "{o}{e}");
    }
    let arm =
        |d: &str| std::fs::read_to_string(tmp.path().join(d).join("azuredeploy.json")).unwrap();
    // (the generator names its source file; the rest must not differ)
    let same = arm("ra").replace("short.yaml", "iso.yaml") == arm("rb");
    assert!(
        same,
        "the short forms render another template than ISO 8601"
    );
    assert!(arm("ra").contains("\"timeWindow\": \"PT10M\""));
    // a bad one is located, with the forms in the help and no regex in the message
    let bad = tmp.path().join("bad.yaml");
    std::fs::write(&bad, short.replace("jobDuration: 20s", "jobDuration: 20x")).unwrap();
    let (code, o, _) = run(&["validate", bad.to_str().unwrap()]);
    assert_eq!(code, 1, "{o}");
    assert!(
        o.contains("`spec.workload.jobDuration` is not a duration: `20x`"),
        "{o}"
    );
    assert!(o.contains("bad.yaml:"), "{o}");
    assert!(o.contains("help: give ISO 8601 (PT2M"), "{o}");
    assert!(!o.contains("does not match"), "{o}");
}

#[test]
fn a_format_name_is_refused_where_a_directory_is_expected() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = examples("shortvideo-transcode.yaml");
    let spec = spec.to_str().unwrap();
    for args in [
        vec!["render", spec, "--output", "markdown"],
        vec!["render", spec, "-o", "json"],
        vec!["render", spec, "--out-dir", "sarif"],
        vec!["render", spec, "--check", "markdown"],
    ] {
        let out = clean_command()
            .current_dir(tmp.path())
            .args(&args)
            .output()
            .unwrap();
        let (_, e) = texts(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {e}");
        assert!(e.contains("help: "), "{args:?}: {e}");
        assert!(e.contains("./"), "{args:?}: the fix names ./DIR: {e}");
    }
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "no directory named after a format was created"
    );
    // ./markdown is a directory, as asked
    let out = clean_command()
        .current_dir(tmp.path())
        .args(["render", spec, "-o", "./markdown"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(tmp.path().join("markdown/main.bicep").is_file());
}

#[test]
fn validate_prints_markdown_for_the_job_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let bad = tmp.path().join("bad.yaml");
    let text = std::fs::read_to_string(examples("shortvideo-transcode.yaml")).unwrap();
    std::fs::write(
        &bad,
        text.replace("scaleOutCooldown: PT5M", "scaleOutCooldown: soon|now"),
    )
    .unwrap();
    let good = examples("shortvideo-transcode.yaml");
    let (code, o, e) = run(&[
        "validate",
        "--output",
        "markdown",
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{o}{e}");
    assert!(
        o.starts_with("### gpuform validate\n\n**2 specs: 1 error"),
        "{o}"
    );
    assert!(o.contains("- ✅ `"), "{o}");
    assert!(
        o.contains("| severity | rule | where | finding | help |"),
        "{o}"
    );
    // a pipe in the value cannot break the table
    let row = o.lines().find(|l| l.starts_with("| ❌ error")).unwrap();
    assert!(row.contains("soon\\|now"), "{row}");
    assert!(row.contains("bad.yaml:"), "{row}");
}
