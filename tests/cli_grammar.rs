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
        "--export",
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
