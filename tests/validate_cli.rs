//! `gpuform validate`, `show`, `schema`, `sizes`, `rules` through the real binary: what a user
//! and a pipeline see, and the exit codes they rely on.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn gpuform() -> Command {
    let mut c = Command::cargo_bin("gpuform").unwrap();
    c.env("NO_COLOR", "1").env_remove("CLICOLOR_FORCE");
    c
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gpuform-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn examples_validate_clean() {
    gpuform()
        .args(["validate", "examples/"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "validated 10 specs: 0 errors, 0 warnings",
        ))
        .stdout(predicate::str::contains(
            "ok examples/shortvideo-transcode.yaml [Standard_NC8as_T4_v3]",
        ));
}

#[test]
fn errors_render_like_rustc_with_the_yaml_line_underlined() {
    let out = gpuform()
        .args(["validate", "tests/fixtures/invalid/vram-exceeds-size.yaml"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let expected = "\
error[vram-exceeds-size]: the workload peaks at 40 GiB of VRAM but Standard_NC8as_T4_v3 has 16 GiB
  --> tests/fixtures/invalid/vram-exceeds-size.yaml:12:13
   |
12 |     vmSize: Standard_NC8as_T4_v3
   |             ^^^^^^^^^^^^^^^^^^^^ 16 GiB of GPU memory
   |
   = note: a lower precision (fp16, int8) lowers the peak; measure it again before changing gpuMemoryGiB
   = help: `Standard_NC64as_T4_v3` ($4.352/h in eastus) is the cheapest size that fits; or set `vmSize: auto`
";
    assert!(text.starts_with(expected), "got:\n{text}");
    assert!(text.contains("FAIL tests/fixtures/invalid/vram-exceeds-size.yaml"));
    assert!(
        !text.contains('\u{1b}'),
        "NO_COLOR output must not contain escape codes"
    );
}

#[test]
fn unknown_fields_point_at_the_key_and_suggest() {
    gpuform()
        .args(["validate", "tests/fixtures/invalid/unknown-field.yaml"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[unknown-field]: unknown field `regularbase` in `spec.capacity`",
        ))
        .stdout(predicate::str::contains("unknown-field.yaml:12:5"))
        .stdout(predicate::str::contains("did you mean `regularBase`?"));
}

#[test]
fn invalid_tag_names_underline_the_name() {
    gpuform()
        .args(["validate", "tests/fixtures/invalid/tag-invalid.yaml"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("tag-invalid.yaml:6:57"))
        .stdout(predicate::str::contains("^^^^^ tag name"));
}

#[test]
fn no_size_fits_names_no_size() {
    let f = "tests/fixtures/invalid/no-size-fits.yaml";
    gpuform()
        .args(["validate", f])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("FAIL {f}: 1 error")))
        .stdout(predicate::str::contains("[auto]").not())
        .stdout(predicate::str::contains("retired").not());
    let out = gpuform()
        .args(["validate", "--format", "json", f])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert!(v["files"][0].get("vmSize").is_none(), "{v}");
}

#[test]
fn exit_codes() {
    // warnings pass unless denied
    gpuform()
        .args([
            "validate",
            "tests/fixtures/invalid/dev-without-shutdown.yaml",
        ])
        .assert()
        .code(0);
    gpuform()
        .args([
            "validate",
            "--deny-warnings",
            "tests/fixtures/invalid/dev-without-shutdown.yaml",
        ])
        .assert()
        .code(1);
    // usage and I/O errors are 2
    gpuform()
        .args(["validate", "no/such/file.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not exist"));
    gpuform().args(["validate"]).assert().code(2);
    gpuform()
        .args(["validate", "--format", "xml", "examples/"])
        .assert()
        .code(2);
    let d = tmp("policy");
    let p = d.join("policy.yaml");
    std::fs::write(&p, "rules:\n  no-such-rule: off\n").unwrap();
    gpuform()
        .args(["validate", "--policy", p.to_str().unwrap(), "examples/"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown rule `no-such-rule`"));
}

#[test]
fn a_policy_cannot_switch_off_schema_errors() {
    let d = tmp("policy-schema");
    let p = d.join("policy.yaml");
    std::fs::write(&p, "rules:\n  unknown-field: off\n").unwrap();
    let spec = d.join("spec.yaml");
    let text = std::fs::read_to_string("examples/dev-notebook-t4.yaml")
        .unwrap()
        .replacen("  region:", "  regionn: x\n  region:", 1);
    std::fs::write(&spec, text).unwrap();
    for cmd in ["validate", "show"] {
        gpuform()
            .args([cmd, "--policy", p.to_str().unwrap(), spec.to_str().unwrap()])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "rule `unknown-field` cannot be changed by a policy",
            ))
            .stderr(predicate::str::contains("panicked").not());
    }
}

#[test]
fn directories_are_searched_and_non_specs_skipped() {
    let d = tmp("dir");
    std::fs::create_dir_all(d.join("nested/.hidden")).unwrap();
    std::fs::copy("examples/dev-notebook-t4.yaml", d.join("nested/a.yml")).unwrap();
    std::fs::copy("tests/fixtures/invalid/tag-missing.yaml", d.join("b.yaml")).unwrap();
    std::fs::write(d.join("workflow.yaml"), "on: push\njobs: {}\n").unwrap();
    std::fs::copy(
        "tests/fixtures/invalid/tag-missing.yaml",
        d.join("nested/.hidden/c.yaml"),
    )
    .unwrap();
    let out = gpuform()
        .args(["validate", d.to_str().unwrap()])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.contains("validated 2 specs: 1 error, 0 warnings"),
        "{text}"
    );
    assert!(!text.contains("workflow.yaml"));
}

#[test]
fn json_format_is_machine_readable() {
    let out = gpuform()
        .args([
            "validate",
            "--format",
            "json",
            "examples/",
            "tests/fixtures/invalid/subnets.yaml",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["summary"]["files"], 11);
    assert_eq!(v["summary"]["errors"], 2);
    let bad = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "tests/fixtures/invalid/subnets.yaml")
        .unwrap();
    assert_eq!(bad["status"], "error");
    let d = &bad["diagnostics"][0];
    assert_eq!(d["rule"], "subnet-too-small");
    assert_eq!(d["pointer"], "/spec/network/workloadSubnet");
    assert_eq!(d["location"]["line"], 14);
    assert_eq!(d["location"]["column"], 21);
}

/// The host triple, from `rustc -vV` (the compiler cargo uses).
fn host_triple() -> String {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = StdCommand::new(rustc).arg("-vV").output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("`rustc -vV` names the host")
        .trim()
        .to_string()
}

/// The SARIF 2.1.0 schema ships inside the serde-sarif crate (a dev-dependency): find it with
/// `cargo metadata` rather than vendoring a copy. `--filter-platform` with the host: without it
/// cargo needs the crates of every platform in Cargo.lock (Windows, wasm), which a build on this
/// host never downloads, and `--offline` fails on a fresh CARGO_HOME (issue 10, item 8).
fn sarif_schema() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = StdCommand::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--filter-platform",
        ])
        .arg(host_triple())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let manifest = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "serde-sarif")
        .and_then(|p| p["manifest_path"].as_str())
        .expect("serde-sarif in cargo metadata")
        .to_string();
    let schema = Path::new(&manifest)
        .parent()
        .unwrap()
        .join("src/schema.json");
    serde_json::from_str(&std::fs::read_to_string(schema).unwrap()).unwrap()
}

#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let out = gpuform()
        .args([
            "validate",
            "--format",
            "sarif",
            "tests/fixtures/invalid/",
            "examples/",
        ])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let sarif: Value = serde_json::from_slice(&out).unwrap();
    // The published schema's `language` patterns have a stray `]` that ECMA regex reads as a
    // literal but Rust's regex rejects; escape it (gpuform writes no `language` property).
    let text = sarif_schema().to_string().replace("{2}]?$", "{2}\\\\]?$");
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        schema["title"],
        "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    );
    // (format assertion stays off: the official schema's own `language` pattern is not a valid
    // regex under a format-checking meta-schema)
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF schema errors:\n{}",
        errors.join("\n")
    );
    // and the typed model reads it back
    let typed: serde_sarif::sarif::Sarif = serde_json::from_value(sarif.clone()).unwrap();
    assert_eq!(typed.runs.len(), 1);
    let run = &sarif["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert!(results.len() >= 30);
    // every result points at a rule the driver describes, with a physical location
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for r in results {
        let idx = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(
            uri.starts_with("tests/fixtures/invalid/") || uri.starts_with("examples/"),
            "{uri}"
        );
        assert!(loc["region"]["startLine"].as_u64().unwrap() >= 1);
    }
    let vram = results
        .iter()
        .find(|r| r["ruleId"] == "vram-exceeds-size")
        .unwrap();
    assert_eq!(vram["level"], "error");
    assert_eq!(
        vram["locations"][0]["physicalLocation"]["region"]["startLine"],
        12
    );
}

#[test]
fn github_annotations() {
    let out = gpuform()
        .args([
            "validate",
            "--format",
            "github",
            "tests/fixtures/invalid/vram-underused.yaml",
        ])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("::warning file=tests/fixtures/invalid/vram-underused.yaml,line=12,col=13,endLine=12,endColumn=37,title=gpuform vram-underused::"),
        "{text}"
    );
    assert!(text.contains("%0Ahelp: `Standard_NC4as_T4_v3`"), "{text}");
    // the A100's capacity note comes as a notice
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("::notice file=tests/fixtures/invalid/vram-underused.yaml,line=12"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 2);
}

#[test]
fn show_prints_the_resolved_spec_and_it_validates_again() {
    let out = gpuform()
        .args(["show", "examples/dev-notebook-t4.yaml"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("vmSize: Standard_NC4as_T4_v3"));
    assert!(text.contains("image: ubuntu-22.04"));
    assert!(text.contains("encryptionAtHost: true"));
    // the dev notebook has no autoscale section, so no cooldown appears
    assert!(!text.contains("scaleOutCooldown"));
    let d = tmp("show");
    let f = d.join("resolved.yaml");
    std::fs::write(&f, &text).unwrap();
    // resolved specs are specs: they validate, and showing them again changes nothing but the header
    gpuform()
        .args(["validate", f.to_str().unwrap()])
        .assert()
        .success();
    let again = gpuform()
        .args(["show", f.to_str().unwrap()])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&text), strip(&String::from_utf8(again).unwrap()));
    // show refuses an invalid spec with exit 1 and the diagnostics on stderr
    gpuform()
        .args(["show", "tests/fixtures/invalid/capacity-order.yaml"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("error[capacity-order]"));
}

#[test]
fn explain_ranks_candidates_with_reasons() {
    gpuform()
        .args(["validate", "--explain", "examples/dev-notebook-t4.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1. Standard_NC4as_T4_v3"))
        .stdout(predicate::str::contains("<- chosen"))
        .stdout(predicate::str::contains("rejected: retired 2025-09-30"))
        .stdout(predicate::str::contains(
            "resolved spec (examples/dev-notebook-t4.yaml)",
        ))
        // the dev box monitors its GPUs without automatic repairs, and says how to recover
        .stdout(predicate::str::contains(
            "no automatic repairs on a standalone VM (after a GPU faults alert, `az vm redeploy --name vm-dev-notebook`",
        ));
}

#[test]
fn explain_and_show_say_chosen_only_when_gpuform_chose() {
    // an explicit size: the spec's size is marked, the cheapest fit is not "chosen"
    let out = gpuform()
        .args(["validate", "--explain", "examples/pretrain-nd-h100.yaml"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("<- chosen"), "{text}");
    let spec_line = text
        .lines()
        .find(|l| l.contains("<- the spec's size"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        spec_line.contains("Standard_ND96isr_H100_v5"),
        "{spec_line}"
    );
    // show's header claims gpuform picked the size only for vmSize: auto
    gpuform()
        .args(["show", "examples/llm-finetune-a100.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("cheapest size that fits").not());
    gpuform()
        .args(["show", "examples/dev-notebook-t4.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "# vmSize: cheapest size that fits in westeurope",
        ));
}

#[test]
fn schema_command_prints_the_shipped_schema() {
    let out = gpuform()
        .arg("schema")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        out,
        std::fs::read("schemas/gpuworkload.schema.json").unwrap()
    );
}

#[test]
fn sizes_filters_and_sorts_by_price() {
    let out = gpuform()
        .args([
            "sizes",
            "--min-gpu-memory",
            "40",
            "--workload",
            "training",
            "--region",
            "eastus",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let sizes = v["sizes"].as_array().unwrap();
    assert!(!sizes.is_empty());
    let mut last = 0.0;
    for s in sizes {
        assert!(s["size"]["gpuMemoryGiB"].as_f64().unwrap() >= 40.0);
        if let Some(p) = s["linuxOnDemandHourly"].as_f64() {
            assert!(p >= last);
            last = p;
        }
    }
    gpuform()
        .args(["sizes", "--infiniband"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Standard_ND96isr_H100_v5"))
        .stdout(predicate::str::contains("Standard_NC4as_T4_v3").not());
}

#[test]
fn rules_lists_every_rule() {
    let out = gpuform()
        .args(["rules", "--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), gpuform::diag::RULES.len());
}

#[test]
fn bad_input_never_panics() {
    let d = tmp("bad");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.yaml", b"".to_vec(), "empty-document"),
        ("latin1.yaml", b"name: caf\xe9\n".to_vec(), "not-utf8"),
        ("binary.yaml", vec![0u8, 159, 146, 150, 0, 1, 2], "not-utf8"),
        ("list.yaml", b"- a\n- b\n".to_vec(), "invalid-type"),
        ("scalar.yaml", b"just text\n".to_vec(), "invalid-type"),
        ("tabs.yaml", b"a:\n\tb: 1\n".to_vec(), "yaml-syntax"),
        ("huge.yaml", vec![b'#'; 2 * 1024 * 1024], "file-too-large"),
        ("deep.yaml", format!("a: {}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(), "yaml-unsupported"),
        ("deep-block.yaml", format!("{}x\n", "- ".repeat(10_000)).into_bytes(), "yaml-unsupported"),
        ("aliases.yaml", b"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n".to_vec(), "yaml-alias-limit"),
        ("two.yaml", b"a: 1\n---\nb: 2\n".to_vec(), "multiple-documents"),
    ];
    for (name, bytes, rule) in cases {
        let f = d.join(name);
        std::fs::write(&f, bytes).unwrap();
        gpuform()
            .args(["validate", "--format", "json", f.to_str().unwrap()])
            .assert()
            .code(1)
            .stdout(predicate::str::contains(format!("\"rule\": \"{rule}\"")))
            .stderr(predicate::str::contains("panicked").not());
    }
}

/// A training-class size for inference warns only when an inference-class size would do: the
/// 70B example needs 170 GiB, which only training-class or restricted sizes hold, so there is
/// nothing better to suggest; the 20 GiB fixture on an H100 still warns.
#[test]
fn training_size_warns_only_when_an_inference_size_fits() {
    gpuform()
        .args(["validate", "examples/llm-70b-tensor-parallel.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("training-size-for-inference").not());
    gpuform()
        .args([
            "validate",
            "tests/fixtures/invalid/training-size-for-inference.yaml",
        ])
        .assert()
        .stdout(predicate::str::contains("training-size-for-inference"));
}
